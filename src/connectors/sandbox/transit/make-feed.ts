import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { distanceMeters } from '../../../platform/geo.ts'
import { pattern, type StopRow, stopRows } from './feed-stops.ts'
import { LINES, type Line, platformId, ROUTE_TYPE, STATIONS, type Window } from './network.ts'

/**
 * Writes the bundled synthetic GTFS feed of Sandbox Transit Berlin (`./feed/`) from the network table. Deterministic:
 * the same table gives the same bytes, and a test compares the committed files with `buildFeed()`.
 *
 *   node src/connectors/sandbox/transit/make-feed.ts             city lines by frequencies.txt (about 1,300 stop_times)
 *   node src/connectors/sandbox/transit/make-feed.ts --explicit  every trip spelled out (about 96,000 stop_times),
 *                                                                 for consumers that do not read frequencies.txt
 *
 * Service: weekdays (`WD`) and weekends (`WE`) from 2025 to 2035; 25 December 2026, a Friday, runs the weekend timetable
 * (the one calendar_dates exception). City lines run from about 04:30 to about 01:30 the next morning (GTFS times past
 * 24:00:00); U-Bahn and tram every 5 minutes in the day, S-Bahn every 10 minutes per line (S5 and S7 together every 5).
 */

const FEED_START = '20250101'
const FEED_END = '20351231'
/** A Friday that runs the weekend timetable. */
const HOLIDAY = '20261225'

const REVERSE_OFFSET_MINUTES = 2

type Row = Record<string, string | number | undefined>

function csv(columns: string[], rows: Row[]): string {
  const cell = (v: string | number | undefined) => {
    const text = v === undefined ? '' : String(v)
    return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
  }
  return `${[columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\n')}\n`
}

const seconds = (time: string) => {
  const [h, m, s] = time.split(':').map(Number)
  return h * 3600 + m * 60 + s
}
const gtfsTime = (total: number) =>
  [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60].map((n) => String(n).padStart(2, '0')).join(':')

const SERVICES = [
  { id: 'WD', windows: (l: Line) => l.weekday },
  { id: 'WE', windows: (l: Line) => l.weekend },
] as const

/** Departures from the first stop for windows shifted by the line's offset. */
function departures(windows: Window[], offsetMinutes: number): number[] {
  const starts: number[] = []
  for (const [start, end, headway] of windows) {
    for (let t = seconds(start); t < seconds(end); t += headway * 60) starts.push(t + offsetMinutes * 60)
  }
  return starts
}

export function buildFeed(options: { explicit?: boolean } = {}): Record<string, string> {
  const stops = stopRows()
  const where = new Map(stops.map((s) => [s.stop_id, s]))
  const ids = new Set<string>()
  for (const s of stops) {
    if (ids.has(s.stop_id)) throw new Error(`stop id ${s.stop_id} twice`)
    ids.add(s.stop_id)
  }

  const trips: Row[] = []
  const stopTimes: Row[] = []
  const frequencies: Row[] = []
  for (const line of LINES) {
    for (const direction of [0, 1] as const) {
      const keys = direction === 0 ? line.stations : [...line.stations].reverse()
      const stopIds = keys.map((k) => platformId(k, line.group, direction))
      const times = pattern(line, stopIds, where)
      const headsign = STATIONS[keys[keys.length - 1]].name
      for (const service of SERVICES) {
        const windows = service.windows(line)
        // The way back starts a little later, so that the two directions do not pass a station at the same minute.
        const offset = line.offset + direction * REVERSE_OFFSET_MINUTES
        const starts = departures(windows, offset)
        const byFrequency = line.frequencies && !options.explicit
        const tripStarts = byFrequency ? [starts[0]] : starts
        for (const start of tripStarts) {
          const tripId = byFrequency
            ? `${line.id}-${direction}-${service.id}`
            : `${line.id}-${direction}-${service.id}-${gtfsTime(start).slice(0, 5).replace(':', '')}`
          trips.push({
            route_id: line.id,
            service_id: service.id,
            trip_id: tripId,
            trip_headsign: headsign,
            direction_id: direction,
            wheelchair_accessible: 1,
            bikes_allowed: line.kind === 'BUS' ? 2 : 1,
          })
          times.forEach((t, i) => {
            stopTimes.push({
              trip_id: tripId,
              arrival_time: gtfsTime(start + t.arrival),
              departure_time: gtfsTime(start + t.departure),
              stop_id: stopIds[i],
              stop_sequence: i + 1,
              pickup_type: i === times.length - 1 ? 1 : 0,
              drop_off_type: i === 0 ? 1 : 0,
            })
          })
        }
        if (byFrequency) {
          for (const [start, end, headway] of windows) {
            const first = seconds(start) + offset * 60
            const count = Math.ceil((seconds(end) - seconds(start)) / (headway * 60))
            // The window ends a minute after its last departure, so inclusive and exclusive readings agree.
            const last = first + (count - 1) * headway * 60
            frequencies.push({
              trip_id: `${line.id}-${direction}-${service.id}`,
              start_time: gtfsTime(first),
              end_time: gtfsTime(last + 60),
              headway_secs: headway * 60,
              exact_times: 1,
            })
          }
        }
      }
    }
  }

  // Transfers between the platforms of one station: a minute across an island platform, else by walking distance.
  const transfers: Row[] = []
  const children = new Map<string, StopRow[]>()
  for (const s of stops) {
    if (s.parent_station) children.set(s.parent_station, [...(children.get(s.parent_station) ?? []), s])
  }
  for (const platforms of children.values()) {
    for (const a of platforms) {
      for (const b of platforms) {
        if (a === b) continue
        const sameGroup = a.group === b.group
        const meters = distanceMeters(
          { latitude: a.stop_lat, longitude: a.stop_lon },
          { latitude: b.stop_lat, longitude: b.stop_lon },
        )
        const min = sameGroup ? 60 : Math.max(120, Math.ceil((90 + meters * 1.5) / 30) * 30)
        transfers.push({ from_stop_id: a.stop_id, to_stop_id: b.stop_id, transfer_type: 2, min_transfer_time: min })
      }
    }
  }

  const routes: Row[] = LINES.map((l, i) => ({
    route_id: l.id,
    agency_id: 'STB',
    route_short_name: l.name,
    route_long_name: l.longName,
    route_type: ROUTE_TYPE[l.kind],
    route_color: l.color,
    route_text_color: l.textColor,
    route_sort_order: i + 1,
  }))

  const zonePairs = (zones: string[]) => zones.flatMap((o) => zones.map((d) => [o, d]))
  const fareRules: Row[] = [
    ...zonePairs(['A', 'B']).map(([o, d]) => ({ fare_id: 'VBB-AB', origin_id: o, destination_id: d })),
    ...zonePairs(['A', 'B', 'C'])
      .filter(([o, d]) => o === 'C' || d === 'C')
      .map(([o, d]) => ({ fare_id: 'VBB-ABC', origin_id: o, destination_id: d })),
  ]

  return {
    'agency.txt': csv(
      ['agency_id', 'agency_name', 'agency_url', 'agency_timezone', 'agency_lang', 'agency_phone', 'agency_fare_url'],
      [
        {
          agency_id: 'STB',
          agency_name: 'Sandbox Transit Berlin',
          agency_url: 'https://transit.sandbox.example',
          agency_timezone: 'Europe/Berlin',
          agency_lang: 'de',
          agency_phone: '+49 30 1234563',
          agency_fare_url: 'https://transit.sandbox.example/tarife',
        },
      ],
    ),
    'feed_info.txt': csv(
      [
        'feed_publisher_name',
        'feed_publisher_url',
        'feed_lang',
        'feed_start_date',
        'feed_end_date',
        'feed_version',
        'feed_contact_email',
      ],
      [
        {
          feed_publisher_name: 'Sandbox Transit Berlin',
          feed_publisher_url: 'https://transit.sandbox.example',
          feed_lang: 'de',
          feed_start_date: FEED_START,
          feed_end_date: FEED_END,
          feed_version: options.explicit ? '2026.1-explicit' : '2026.1',
          feed_contact_email: 'service@transit.sandbox.example',
        },
      ],
    ),
    'stops.txt': csv(
      [
        'stop_id',
        'stop_name',
        'stop_lat',
        'stop_lon',
        'zone_id',
        'location_type',
        'parent_station',
        'wheelchair_boarding',
        'platform_code',
      ],
      stops as unknown as Row[],
    ),
    'routes.txt': csv(
      [
        'route_id',
        'agency_id',
        'route_short_name',
        'route_long_name',
        'route_type',
        'route_color',
        'route_text_color',
        'route_sort_order',
      ],
      routes,
    ),
    'trips.txt': csv(
      ['route_id', 'service_id', 'trip_id', 'trip_headsign', 'direction_id', 'wheelchair_accessible', 'bikes_allowed'],
      trips,
    ),
    'stop_times.txt': csv(
      ['trip_id', 'arrival_time', 'departure_time', 'stop_id', 'stop_sequence', 'pickup_type', 'drop_off_type'],
      stopTimes,
    ),
    ...(frequencies.length > 0
      ? {
          'frequencies.txt': csv(['trip_id', 'start_time', 'end_time', 'headway_secs', 'exact_times'], frequencies),
        }
      : {}),
    'calendar.txt': csv(
      [
        'service_id',
        'monday',
        'tuesday',
        'wednesday',
        'thursday',
        'friday',
        'saturday',
        'sunday',
        'start_date',
        'end_date',
      ],
      [
        { service_id: 'WD', ...days('1111100'), start_date: FEED_START, end_date: FEED_END },
        { service_id: 'WE', ...days('0000011'), start_date: FEED_START, end_date: FEED_END },
      ],
    ),
    'calendar_dates.txt': csv(
      ['service_id', 'date', 'exception_type'],
      [
        { service_id: 'WD', date: HOLIDAY, exception_type: 2 },
        { service_id: 'WE', date: HOLIDAY, exception_type: 1 },
      ],
    ),
    'transfers.txt': csv(['from_stop_id', 'to_stop_id', 'transfer_type', 'min_transfer_time'], transfers),
    'fare_attributes.txt': csv(
      ['fare_id', 'price', 'currency_type', 'payment_method', 'transfers', 'agency_id', 'transfer_duration'],
      [
        // Adult single tickets; the other products and traveller categories are in the ticketing (fares.ts).
        {
          fare_id: 'VBB-AB',
          price: '3.80',
          currency_type: 'EUR',
          payment_method: 1,
          agency_id: 'STB',
          transfer_duration: 7200,
        },
        {
          fare_id: 'VBB-ABC',
          price: '4.70',
          currency_type: 'EUR',
          payment_method: 1,
          agency_id: 'STB',
          transfer_duration: 7200,
        },
      ],
    ),
    'fare_rules.txt': csv(['fare_id', 'origin_id', 'destination_id'], fareRules),
  }
}

function days(pattern: string): Row {
  const names = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
  return Object.fromEntries(names.map((n, i) => [n, Number(pattern[i])]))
}

export const FEED_DIR = fileURLToPath(new URL('./feed/', import.meta.url))

if (import.meta.main) {
  const files = buildFeed({ explicit: process.argv.includes('--explicit') })
  mkdirSync(FEED_DIR, { recursive: true })
  if (!files['frequencies.txt']) rmSync(`${FEED_DIR}frequencies.txt`, { force: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(`${FEED_DIR}${name}`, text)
  const stopTimes = files['stop_times.txt'].split('\n').length - 2
  process.stdout.write(`wrote ${Object.keys(files).length} files to ${FEED_DIR} (${stopTimes} stop_times)\n`)
}
