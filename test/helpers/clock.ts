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
