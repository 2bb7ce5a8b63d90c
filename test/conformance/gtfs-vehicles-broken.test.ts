import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { at, ctx, encodeFeed, fileUrl, MINUTE, NOW, SECOND, vehicleFeedSetup, vp } from '../helpers/gtfs-rt.ts'

// The GTFS connector's VehiclePositions when the feed breaks: garbage, empty, HTTP errors, timeouts; how long the
// last good positions are kept; reading on the interval.

const { server, scratch, started } = vehicleFeedSetup()

describe('gtfs vehicle positions: broken feeds and staleness', () => {
  const good = () => encodeFeed([vp('a', { vehicle: { id: 'bus-a' }, ...at(36.9, -116.76) })])

  it('garbage, an empty body, HTTP 500 and a timeout never break the provider; each is reported', async () => {
    const cases: [string, { status: number; body: Uint8Array | string }, RegExp][] = [
      ['/garbage.pb', { status: 200, body: 'not protobuf at all, surely' }, /not a GTFS-Realtime FeedMessage/],
      ['/empty.pb', { status: 200, body: '' }, /not a GTFS-Realtime FeedMessage \(no header\)/],
      ['/error.pb', { status: 500, body: 'down' }, /HTTP 500/],
    ]
    for (const [path, answer, error] of cases) {
      server.answers.set(path, answer)
      const { connector, vehicles } = await started({ vehiclePositionsUrl: `${server.base}${path}` })
      assert.deepEqual(await vehicles(), [], path)
      assert.match(connector.stats().vehiclePositions?.lastError ?? '', error, path)
      assert.match(connector.problems().join('\n'), /vehicle positions/, path)
      // The timetable is unaffected.
      assert.ok(
        (await connector.departures('BEATTY_AIRPORT', new Date(NOW - 10 * MINUTE), 1, ctx(new Date(NOW)))).length,
      )
    }
    server.answers.set('/slow.pb', { status: 200, body: good() })
    server.delayMs = 1000
    try {
      const slow = await started({ vehiclePositionsUrl: `${server.base}/slow.pb`, timeoutMs: 200 })
      assert.deepEqual(await slow.vehicles(), [])
      assert.match(slow.connector.stats().vehiclePositions?.lastError ?? '', /did not answer within 200 ms/)
    } finally {
      server.delayMs = 0
    }
  })

  it('keeps the last good positions through failed reads, for at most 5 minutes after they were measured', async () => {
    server.answers.set('/flaky.pb', { status: 200, body: good() })
    const { connector, clock, vehicles } = await started({ vehiclePositionsUrl: `${server.base}/flaky.pb` })
    assert.deepEqual(
      (await vehicles()).map((v) => v.id),
      ['bus-a'],
    )
    const version = (await connector.vehicles?.(ctx(clock())))?.version
    for (const body of [Buffer.from([0xff, 0xff, 0xff]), '']) {
      server.answers.set('/flaky.pb', { status: 200, body })
      clock.advance(MINUTE)
      await connector.refreshVehiclePositions()
      assert.deepEqual(
        (await vehicles()).map((v) => v.id),
        ['bus-a'],
      )
    }
    assert.equal((await connector.vehicles?.(ctx(clock())))?.version, version, 'the same list, the same version')
    server.answers.set('/flaky.pb', { status: 503, body: 'down' })
    clock.advance(3 * MINUTE + 1 * SECOND)
    await connector.refreshVehiclePositions()
    assert.deepEqual(await vehicles(), [], 'older than 5 minutes')
    assert.equal(connector.stats().vehiclePositions?.vehicles, 0, 'the old snapshot is let go')
    // The feed's age keeps counting, so an alert on feed_age_seconds fires.
    assert.equal(connector.feedAgeSeconds?.(), 5 * 60 + 1)
    // The feed comes back.
    server.answers.set('/flaky.pb', {
      status: 200,
      body: encodeFeed([vp('a', { vehicle: { id: 'bus-a' }, ...at(36.9, -116.76) })], clock().getTime()),
    })
    await connector.refreshVehiclePositions()
    assert.deepEqual(
      (await vehicles()).map((v) => v.id),
      ['bus-a'],
    )
    assert.equal(connector.feedAgeSeconds?.(), 0)
  })

  it('reads a file: feed on its interval', async () => {
    const file = join(scratch, 'vp.pb')
    const feed = (lon: number) => encodeFeed([vp('a', { vehicle: { id: 'bus-a' }, ...at(36.9, lon) })], null)
    writeFileSync(file, feed(-116.7))
    const { connector, vehicles } = await started(
      { vehiclePositionsUrl: fileUrl(file), realtimeRefreshSeconds: 1 },
      Date.now(),
    )
    const longitude = async () => (await vehicles())[0]?.longitude
    assert.equal(await longitude(), -116.7)
    writeFileSync(file, feed(-116.6))
    const until = Date.now() + 5000
    while ((await longitude()) !== -116.6 && Date.now() < until) await new Promise((r) => setTimeout(r, 100))
    assert.equal(await longitude(), -116.6)
    await connector.stop?.()
  })
})
