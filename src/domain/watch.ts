import type { Jobs } from '../platform/jobs.ts'

/**
 * Pauses between reads of something a provider finishes on its own (a PENDING car booking confirmed, tickets issued
 * a few seconds after the booking): soon at first, then less often, for about a day. What settles is recorded and
 * announced (events) without waiting for a client to read it.
 */
export const WATCH_PAUSES_MS = [
  5_000,
  15_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  60 * 60_000,
  6 * 3600_000,
  18 * 3600_000,
]

/** One job id per record and round, so a repeated schedule of the same round does nothing. */
export const WATCH_JOB_ID = {
  car: (bookingId: string, round: number) => `watch_car_${bookingId}_${round}`,
  tickets: (bookingId: string, round: number) => `watch_tickets_${bookingId}_${round}`,
}

/** Schedules round `round` of a watch; after the last round the record is left to the client's reads. */
export async function watchAgain(
  jobs: Jobs,
  clock: () => Date,
  kind: string,
  id: string,
  payload: object,
  round: number,
): Promise<void> {
  const pause = WATCH_PAUSES_MS[round]
  if (pause === undefined) return
  await jobs.enqueue(kind, payload, { id, runAt: new Date(clock().getTime() + pause) })
}
