import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { openFeed } from '../../src/connectors/gtfs/client.ts'
import { DepartureOrder } from '../../src/connectors/gtfs/engine/build.ts'
import { parseGtfsTime } from '../../src/connectors/gtfs/engine/calendar.ts'
import { ByteKeys, type CsvRecord, scanCsv } from '../../src/connectors/gtfs/engine/csv.ts'
import { loadTimetable } from '../../src/connectors/gtfs/engine/load.ts'

/** The bytes in chunks of the given sizes, each copied into one buffer that the next chunk overwrites. */
async function* reused(bytes: Buffer, sizes: number[]): AsyncGenerator<Uint8Array> {
  const shared = Buffer.alloc(Math.max(...sizes))
  let at = 0
  for (let k = 0; at < bytes.length; k++) {
    const n = Math.min(sizes[k % sizes.length], bytes.length - at)
    bytes.copy(shared, 0, at, at + n)
    at += n
    yield shared.subarray(0, n)
    shared.fill(0x78)
  }
}

async function rows(bytes: Buffer, sizes: number[]) {
  const out: string[][] = []
  const problems: string[] = []
  await scanCsv(
    reused(bytes, sizes),
    (record) => out.push(record.fields()),
    (m) => problems.push(m),
  )
  return { out, problems }
}

describe('gtfs csv: the byte scanner', () => {
  const file = Buffer.from('\ufeffa,b,c\r\n1,"x, ""y""\nz",3\r\n\r\n   \nq,ü,\nr,"never closed,4\n5,6,7', 'utf8')

  it('reads the same rows and problems whatever the chunks, though each chunk is overwritten by the next', async () => {
    const whole = await rows(file, [file.length])
    assert.deepEqual(whole.out, [
      ['1', 'x, "y"\nz', '3'],
      ['q', 'ü', ''],
      ['5', '6', '7'],
    ])
    assert.deepEqual(whole.problems, ['line 7: a quoted field is never closed; the line is skipped'])
    for (const sizes of [[1], [2, 3], [5, 1, 7], [13]]) assert.deepEqual(await rows(file, sizes), whole, `${sizes}`)
  })

  it('reads numbers, times, flags and ids from the bytes as the text would read', async () => {
    const fields = [' 12 ', '', '1e1', '+4', '0x0f', '-1', '2.0', '123456789012', '\u00a01', '1', ' 1\t', 'x']
    const times = ['07:05:00', ' 7:05:00 ', '25:10:00', '07:05', '', '\t07:05:00', '07:65:00', 'é7:00:00', '123:00:00']
    const ids = new Map([
      ['S1', 0],
      ['ST\u00d6P', 1],
      ['R0T0', 2],
    ])
    const keys = new ByteKeys(ids)
    const line = [...fields, ...times, 'S1', ' S1 ', 'ST\u00d6P', '\u00a0S1', 'R0T0', 'R0T0', 'nope', 'S1'].join(',')
    let record: CsvRecord | undefined
    const seen: string[] = []
    await scanCsv(
      reused(Buffer.from(`h\n${line}\n`, 'utf8'), [7]),
      (r) => {
        record = r
        const text = (i: number) => r.text(i)
        for (let i = 0; i < r.count; i++) {
          const raw = r.raw(i) ?? ''
          assert.equal(text(i), raw.trim())
          assert.ok(Object.is(r.number(i), Number(raw.trim())), `number ${JSON.stringify(raw)}`)
          assert.ok(Object.is(r.time(i), parseGtfsTime(raw)), `time ${JSON.stringify(raw)}`)
          assert.equal(r.isOne(i), raw.trim() === '1')
          assert.equal(r.isEmpty(i), raw.trim() === '')
          seen.push(`${r.lookup(i, keys)}`)
        }
      },
      () => {},
    )
    assert.ok(record)
    assert.deepEqual(seen.slice(-8), ['0', '0', '1', '0', '2', '2', '-1', '0'])
  })
})

describe('gtfs build: events by departure', () => {
  it('orders like a stable sort by departure, in few runs and in many', () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed / 0x7fffffff
    }
    const order = new DepartureOrder()
    for (let trial = 0; trial < 2000; trial++) {
      const n = 1 + Math.floor(random() * 300)
      const runs = 1 + Math.floor(random() * (trial % 2 ? 4 : 80))
      const range = trial % 7 === 0 ? 2e9 : trial % 5 === 0 ? 4 : 2000
      const dep = new Int32Array(n + 2)
      let run = 0
      for (let j = 0; j < n; j++) {
        if (random() < runs / n) run = Math.floor(random() * range)
        else run += Math.floor(random() * 3)
        dep[j + 1] = Math.min(run, 0x7fffffff)
      }
      const expected = Array.from({ length: n }, (_, k) => k).sort((x, y) => dep[x + 1] - dep[y + 1])
      const perm = order.sort(dep, 1, n)
      const identity = Array.from({ length: n }, (_, k) => k)
      assert.deepEqual(perm ? Array.from(perm) : identity, expected)
    }
  })
})

describe('gtfs build: stop_times of trips left out', () => {
  it('takes their stop_headsign along (it used to stay on the rows of the next trip)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gtfs-csv-'))
    try {
      const files: Record<string, string> = {
        'agency.txt': 'agency_id,agency_name,agency_url,agency_timezone\nA,A,https://a.example,Europe/Berlin\n',
        'stops.txt': 'stop_id,stop_name,stop_lat,stop_lon\nS1,One,52.52,13.40\nS2,Two,52.53,13.41\n',
        'routes.txt': 'route_id,agency_id,route_short_name,route_type\nR,A,R,3\n',
        'calendar.txt':
          'service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n' +
          'D,1,1,1,1,1,1,1,20260101,20261231\n',
        'trips.txt': 'route_id,service_id,trip_id\nR,D,ONE_STOP\nR,D,NEXT\n',
        'stop_times.txt':
          'trip_id,arrival_time,departure_time,stop_id,stop_sequence,stop_headsign\n' +
          'ONE_STOP,10:00:00,10:00:00,S1,1,Ghost\nNEXT,10:00:00,10:00:00,S1,1,\nNEXT,10:10:00,10:10:00,S2,2,Two\n',
      }
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
      const problems: string[] = []
      const source = await openFeed(pathToFileURL(dir), { timeoutMs: 10_000, maxBytes: 1e6 })
      const tt = await loadTimetable(source, { transferWalkMeters: 0, report: (f, m) => problems.push(`${f}: ${m}`) })
      assert.deepEqual(problems, ['stop_times.txt: trip ONE_STOP: fewer than two stops; the trip is ignored'])
      const next = tt.tripsById.get('NEXT')?.[0] as number
      assert.deepEqual([...tt.stHeadsign], [[tt.tripSt[next] + 1, 'Two']])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
