/**
 * What the service needs in order to answer, by name (`store`, `redis`): each check resolves when that dependency
 * answered and rejects when it did not. `GET /ready` runs them.
 */
export type ReadinessChecks = Record<string, () => Promise<unknown>>

export type CheckStatus = 'OK' | 'FAILED' | 'TIMEOUT'

export interface Readiness {
  ready: boolean
  checks: Record<string, CheckStatus>
}

/**
 * Runs every check at once, each under `timeoutMs`: a dependency that hangs (a Redis that accepts the connection but
 * never answers, a database waiting for a lock) makes the answer "not ready" instead of making the probe hang.
 * When the timer comes due, the answers that arrived meanwhile are read first (one turn of the loop): after the event
 * loop stood still, a timer runs before the replies that came in time, and would call a dependency that answered
 * not ready.
 */
export async function checkReadiness(checks: ReadinessChecks, timeoutMs: number): Promise<Readiness> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckStatus]> => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<CheckStatus>((resolve) => {
        timer = setTimeout(() => setImmediate(resolve, 'TIMEOUT'), timeoutMs)
      })
      const outcome = Promise.resolve()
        .then(check)
        .then(
          (): CheckStatus => 'OK',
          (): CheckStatus => 'FAILED',
        )
      try {
        return [name, await Promise.race([outcome, timeout])]
      } finally {
        clearTimeout(timer)
      }
    }),
  )
  const result = Object.fromEntries(entries)
  return { ready: entries.every(([, status]) => status === 'OK'), checks: result }
}
