import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { formatGtfsTime } from './engine/calendar.ts'

/**
 * A synthetic GTFS city of any size, deterministic for a given seed: stops on a jittered grid around a centre
 * (Berlin by default), lines that wander across the grid, trips both ways from early morning until past midnight,
 * a daily and a weekday service. For benchmarks and for sandbox feeds; stop_times are streamed to disk, so a
 * feed of millions of rows takes seconds and little memory.
 */

export interface CityFeedOptions {
  /** The folder to write (created if missing). */
  dir: string
  stops?: number
  routes?: number
  stopsPerRoute?: number
  /** Trips per route, both directions together. */
  tripsPerRoute?: number
  center?: { latitude: number; longitude: number }
  /** Distance between neighbouring grid stops. */
  spacingMeters?: number
  timezone?: string
  agencyName?: string
  agencyUrl?: string
  /** YYYYMMDD; the calendar runs from startDate to endDate. */
  startDate?: string
  endDate?: string
  /** First and last departure of each route from its first stop, seconds (past 86400 runs past midnight). */
  firstDeparture?: number
  lastDeparture?: number
  seed?: number
}

export interface CityFeedSummary {
  dir: string
  stops: number
  routes: number
  trips: number
  stopTimes: number
}

function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const NAMES = [
  'Linden',
  'Birken',
  'Eichen',
  'Müller',
  'Schönhauser',
  'Görlitzer',
  'Köpenicker',
  'Weißensee',
  'Friedrich',
  'Alexander',
  'Rosenthaler',
  'Prenzlauer',
  'Kastanien',
  'Oranien',
  'Bernauer',
  'Brunnen',
  'Invaliden',
  'Warschauer',
  'Frankfurter',
  'Potsdamer',
  'Leipziger',
  'Möckern',
  'Yorck',
  'Gneisenau',
  'Hermann',
  'Sonnen',
  'Karl-Marx',
  'Boxhagener',
  'Grünberger',
  'Dänen',
  'Tegeler',
  'Spandauer',
  'Charlotten',
  'Wilmersdorfer',
  'Kurfürsten',
  'Tauentzien',
  'Hauptbahnhof',
  'Zoologischer Garten',
  'Gesundbrunnen',
  'Südkreuz',
]
const KINDS = [
  'straße',
  'platz',
  ' Allee',
  ' Tor',
  'weg',
  ' Park',
  ' Brücke',
  'damm',
  'ufer',
  ' Markt',
  'ring',
  ' Chaussee',
  'hof',
  ' Kirche',
  ' Rathaus',
  'garten',
  ' Schule',
  'steig',
  ' Bad',
  'höhe',
]
const DISTRICTS = ['Mitte', 'Nord', 'Süd', 'Ost', 'West', 'Köpenick', 'Pankow', 'Spandau', 'Neukölln', 'Wedding']
const COLORS = ['E3000F', '00854A', 'F0D722', '7DAD4C', '0064AD', '9B2D7F', '00A3E4', 'F28C00', '8C6DAB', 'A8D8E9']
/** route_type, km/h between stops. */
const MODES = [
  [3, 20],
  [3, 20],
  [3, 20],
  [700, 22],
  [0, 22],
  [900, 22],
  [0, 24],
  [1, 36],
  [2, 55],
  [109, 50],
] as const

function stopName(i: number): string {
  const name = `${NAMES[i % NAMES.length]}${KINDS[Math.floor(i / NAMES.length) % KINDS.length]}`
  const round = Math.floor(i / (NAMES.length * KINDS.length))
  return round === 0
    ? name
    : `${name} (${DISTRICTS[(round - 1) % DISTRICTS.length]}${round > DISTRICTS.length ? ` ${Math.ceil(round / DISTRICTS.length)}` : ''})`
}

const csv = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

/** A write stream that takes lines and honours backpressure. */
class LineWriter {
  private readonly stream: ReturnType<typeof createWriteStream>
  private buffer: string[] = []
  private size = 0

  constructor(path: string, header: string) {
    this.stream = createWriteStream(path)
    this.buffer.push(header)
  }

  async line(text: string): Promise<void> {
    this.buffer.push(text)
    this.size += text.length
    if (this.size > 1 << 20) await this.flush()
  }

  private async flush(): Promise<void> {
    const chunk = `${this.buffer.join('\n')}\n`
    this.buffer = []
    this.size = 0
    if (!this.stream.write(chunk)) await once(this.stream, 'drain')
  }

  async close(): Promise<void> {
    if (this.buffer.length > 0) await this.flush()
    this.stream.end()
    await once(this.stream, 'finish')
  }
}

export async function generateCityFeed(options: CityFeedOptions): Promise<CityFeedSummary> {
  const stopCount = Math.max(2, options.stops ?? 2000)
  const routeCount = Math.max(1, options.routes ?? 60)
  const stopsPerRoute = Math.max(2, options.stopsPerRoute ?? 20)
  const tripsPerRoute = Math.max(1, options.tripsPerRoute ?? 100)
  const center = options.center ?? { latitude: 52.52, longitude: 13.405 }
  const spacing = options.spacingMeters ?? 400
  const first = options.firstDeparture ?? 5 * 3600
  const last = options.lastDeparture ?? 24 * 3600 + 30 * 60
  const random = prng(options.seed ?? 1)
  await mkdir(options.dir, { recursive: true })

  const write = async (file: string, header: string, lines: string[]) => {
    const w = new LineWriter(join(options.dir, file), header)
    for (const line of lines) await w.line(line)
    await w.close()
  }

  await write('agency.txt', 'agency_id,agency_name,agency_url,agency_timezone,agency_lang', [
    `SYN,${csv(options.agencyName ?? 'Synthetic Transit')},${options.agencyUrl ?? 'https://transit.example'},${options.timezone ?? 'Europe/Berlin'},de`,
  ])
  await write('feed_info.txt', 'feed_publisher_name,feed_publisher_url,feed_lang,feed_version', [
    `Synthetic,https://transit.example,de,seed-${options.seed ?? 1}`,
  ])
  await write(
    'calendar.txt',
    'service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date',
    [
      `DAILY,1,1,1,1,1,1,1,${options.startDate ?? '20240101'},${options.endDate ?? '20351231'}`,
      `WEEKDAY,1,1,1,1,1,0,0,${options.startDate ?? '20240101'},${options.endDate ?? '20351231'}`,
    ],
  )

  // Stops on a jittered grid.
  const side = Math.ceil(Math.sqrt(stopCount))
  const metersPerDegLat = 110_574
  const metersPerDegLon = 111_320 * Math.cos((center.latitude * Math.PI) / 180)
  const lat = new Float64Array(stopCount)
  const lon = new Float64Array(stopCount)
  const stopLines: string[] = []
  for (let i = 0; i < stopCount; i++) {
    const row = Math.floor(i / side)
    const col = i % side
    const y = (row - side / 2) * spacing + (random() - 0.5) * spacing * 0.4
    const x = (col - side / 2) * spacing + (random() - 0.5) * spacing * 0.4
    lat[i] = center.latitude + y / metersPerDegLat
    lon[i] = center.longitude + x / metersPerDegLon
    stopLines.push(`S${i},${csv(stopName(i))},${lat[i].toFixed(6)},${lon[i].toFixed(6)},0,,1`)
  }
  await write(
    'stops.txt',
    'stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station,wheelchair_boarding',
    stopLines,
  )

  // Lines wander over the grid: mostly straight, sometimes turning, never visiting a stop twice.
  const directions = [
    [0, 1],
    [1, 0],
    [0, -1],
    [-1, 0],
    [1, 1],
    [-1, -1],
    [1, -1],
    [-1, 1],
  ]
  const rows = Math.ceil(stopCount / side)
  const routeStops: number[][] = []
  const routeLines: string[] = []
  // Each line starts at a stop no line serves yet (while there are such), so the network covers the city.
  const covered = new Uint8Array(stopCount)
  let uncovered = 0
  for (let r = 0; r < routeCount; r++) {
    let start = Math.floor(random() * stopCount)
    while (uncovered < stopCount && covered[uncovered]) uncovered++
    if (uncovered < stopCount && covered[start])
      start = uncovered + Math.floor(random() * Math.min(side, stopCount - uncovered))
    if (covered[start] && uncovered < stopCount) start = uncovered
    let row = Math.floor(start / side)
    let col = start % side
    let dir = Math.floor(random() * directions.length)
    const path = [row * side + col]
    const seen = new Set(path)
    while (path.length < stopsPerRoute) {
      if (random() < 0.15) dir = Math.floor(random() * directions.length)
      let moved = false
      for (let attempt = 0; attempt < directions.length && !moved; attempt++) {
        const [dr, dc] = directions[(dir + attempt) % directions.length]
        const next = (row + dr) * side + (col + dc)
        if (row + dr < 0 || row + dr >= rows || col + dc < 0 || col + dc >= side || next >= stopCount) continue
        if (seen.has(next)) continue
        row += dr
        col += dc
        dir = (dir + attempt) % directions.length
        path.push(next)
        seen.add(next)
        moved = true
      }
      if (!moved) break
    }
    routeStops.push(path)
    for (const stop of path) covered[stop] = 1
    const [type] = MODES[r % MODES.length]
    const short =
      type === 1
        ? `U${r + 1}`
        : type === 2 || type === 109
          ? `S${r + 1}`
          : type === 0 || type === 900
            ? `M${r + 1}`
            : `${100 + r}`
    routeLines.push(
      `R${r},SYN,${short},${csv(`${stopName(path[0])} - ${stopName(path[path.length - 1])}`)},${type},${COLORS[r % COLORS.length]},FFFFFF`,
    )
  }
  await write(
    'routes.txt',
    'route_id,agency_id,route_short_name,route_long_name,route_type,route_color,route_text_color',
    routeLines,
  )

  const trips = new LineWriter(join(options.dir, 'trips.txt'), 'route_id,service_id,trip_id,trip_headsign,direction_id')
  const times = new LineWriter(
    join(options.dir, 'stop_times.txt'),
    'trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type,drop_off_type',
  )
  let tripCount = 0
  let stopTimeCount = 0
  for (let r = 0; r < routeCount; r++) {
    const path = routeStops[r]
    const [, kmh] = MODES[r % MODES.length]
    const speed = (kmh * 1000) / 3600
    const hops: number[] = []
    for (let i = 1; i < path.length; i++) {
      const dy = (lat[path[i]] - lat[path[i - 1]]) * metersPerDegLat
      const dx = (lon[path[i]] - lon[path[i - 1]]) * metersPerDegLon
      hops.push(Math.max(60, Math.round(Math.hypot(dx, dy) / speed / 10) * 10))
    }
    const perDirection = Math.ceil(tripsPerRoute / 2)
    const headway = Math.max(60, Math.floor((last - first) / perDirection))
    const phase = Math.floor(random() * Math.min(headway, 600))
    for (let k = 0; k < tripsPerRoute; k++) {
      const direction = k % 2
      const stops = direction === 0 ? path : [...path].reverse()
      const legs = direction === 0 ? hops : [...hops].reverse()
      const tripId = `R${r}T${k}`
      const service = k % 4 === 3 ? 'WEEKDAY' : 'DAILY'
      await trips.line(`R${r},${service},${tripId},${csv(stopName(stops[stops.length - 1]))},${direction}`)
      let time = first + phase + Math.floor(k / 2) * headway
      for (let i = 0; i < stops.length; i++) {
        if (i > 0) time += legs[i - 1]
        const arrival = formatGtfsTime(time)
        const dwell = i > 0 && i < stops.length - 1 ? 30 : 0
        const departure = dwell ? formatGtfsTime(time + dwell) : arrival
        time += dwell
        const pickup = i === stops.length - 1 ? 1 : 0
        const dropOff = i === 0 ? 1 : 0
        await times.line(`${tripId},${arrival},${departure},S${stops[i]},${i + 1},${pickup},${dropOff}`)
        stopTimeCount++
      }
      tripCount++
    }
  }
  await trips.close()
  await times.close()
  return { dir: options.dir, stops: stopCount, routes: routeCount, trips: tripCount, stopTimes: stopTimeCount }
}
