/** A clock tests can move: expiry, windows and retention without waiting. */
export function testClock(start = Date.now()) {
  let now = start
  const clock = () => new Date(now)
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms
    },
    set(ms: number) {
      now = ms
    },
  })
}
export type TestClock = ReturnType<typeof testClock>

const berlinHour = (ms: number) =>
  Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: 'numeric', hourCycle: 'h23' }).format(ms))

/**
 * Now, if it is daytime in Berlin (07:00 to 19:00), else the next such hour: the sandbox's trains, buses and trams run
 * from about 04:30 to 00:05 local time, more often by day, so a test that plans a journey "now" must not depend on
 * the hour CI happens to run at. The clock only ever moves forward from the real time.
 */
export function serviceHours(now = Date.now()): number {
  let t = now
  while (berlinHour(t) < 7 || berlinHour(t) >= 19) t += 30 * 60_000
  return t
}
