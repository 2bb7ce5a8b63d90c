import type { FeedSource } from '../client.ts'
import { parseColor } from '../map.ts'
import { buildTimetable } from './build.ts'
import { FeedClock, formatGtfsDate, parseGtfsDate, parseGtfsTime, ServiceCalendar } from './calendar.ts'
import { ByteKeys, type CsvRecord, type Header, scanCsv } from './csv.ts'
import { arrayBytes, IntColumn, IntList, NO_DROP_OFF, NO_PICKUP, type RawFeed, type Timetable } from './timetable.ts'

/**
 * Reads a GTFS feed file by file into a RawFeed and indexes it. Required files missing → the load fails; optional
 * ones missing, and bad rows (unknown references, malformed values), are reported and the rest is loaded.
 */

export type Report = (file: string, message: string) => void

const text = (row: string[], i: number): string => (i >= 0 ? (row[i] ?? '').trim() : '')
const optional = (value: string): string | undefined => (value === '' ? undefined : value)

async function readFile(
  source: FeedSource,
  file: string,
  required: boolean,
  report: Report,
  onRow: (row: string[], header: Header, rowNumber: number) => void,
): Promise<boolean> {
  return readRecords(source, file, required, report, (record, header, n) => onRow(record.fields(), header, n))
}

/** readFile with each row as a CsvRecord (read from its bytes: stop_times.txt). */
async function readRecords(
  source: FeedSource,
  file: string,
  required: boolean,
  report: Report,
  onRecord: (record: CsvRecord, header: Header, rowNumber: number) => void,
): Promise<boolean> {
  const stream = await source.open(file)
  if (!stream) {
    if (required) throw new Error(`${source.description}: ${file} is missing`)
    return false
  }
  let problems = 0
  const rowReport = (message: string) => {
    problems++
    if (problems <= 20) report(file, message)
  }
  await scanCsv(
    stream,
    (record, header, n) => {
      try {
        onRecord(record, header, n)
      } catch (error) {
        rowReport(`row ${n}: ${(error as Error).message}`)
      }
    },
    rowReport,
  )
  if (problems > 20) report(file, `${problems - 20} more problems not listed`)
  return true
}

/** A row problem: thrown from a row handler, reported with the row number, the row skipped. */
const bad = (message: string): never => {
  throw new Error(message)
}

function interner() {
  const strings = new Map<string, string>()
  return (value: string): string => {
    const known = strings.get(value)
    if (known !== undefined) return known
    strings.set(value, value)
    return value
  }
}

export async function parseFeed(source: FeedSource, report: Report): Promise<RawFeed> {
  const agencies: RawFeed['agencies'] = []
  await readFile(source, 'agency.txt', false, report, (row, h) => {
    const name = text(row, h.col('agency_name'))
    agencies.push({
      id: text(row, h.col('agency_id')),
      name,
      url: optional(text(row, h.col('agency_url'))),
      timezone: optional(text(row, h.col('agency_timezone'))),
    })
  })
  let timezone = agencies.find((a) => a.timezone)?.timezone ?? 'UTC'
  let clock: FeedClock
  try {
    clock = new FeedClock(timezone)
  } catch {
    report('agency.txt', `agency_timezone ${timezone} is not a known time zone; UTC is used`)
    timezone = 'UTC'
    clock = new FeedClock(timezone)
  }
  if (agencies.length === 0) report('agency.txt', 'no agency; times are read in UTC')

  const stops: RawFeed['stops'] = {
    ids: [],
    names: [],
    lat: [],
    lon: [],
    code: [],
    platform: [],
    parentId: [],
    locationType: [],
    wheelchair: [],
  }
  const stopIndex = new Map<string, number>()
  await readFile(source, 'stops.txt', true, report, (row, h) => {
    const id = text(row, h.col('stop_id'))
    if (!id) bad('stop_id is empty')
    if (stopIndex.has(id)) bad(`stop_id ${id} appears twice`)
    const type = Number(text(row, h.col('location_type')) || 0)
    const lat = Number(text(row, h.col('stop_lat')))
    const lon = Number(text(row, h.col('stop_lon')))
    const located = text(row, h.col('stop_lat')) !== '' && Math.abs(lat) <= 90 && Math.abs(lon) <= 180
    if (!located && type <= 2) bad(`stop ${id} has no valid position (stop_lat, stop_lon)`)
    stopIndex.set(id, stops.ids.length)
    stops.ids.push(id)
    stops.names.push(text(row, h.col('stop_name')))
    stops.lat.push(located ? lat : 0)
    stops.lon.push(located ? lon : 0)
    stops.code.push(optional(text(row, h.col('stop_code'))))
    stops.platform.push(optional(text(row, h.col('platform_code'))))
    stops.parentId.push(optional(text(row, h.col('parent_station'))))
    stops.locationType.push(Number.isInteger(type) && type >= 0 && type <= 4 ? type : 0)
    const wheelchair = Number(text(row, h.col('wheelchair_boarding')) || 0)
    stops.wheelchair.push(wheelchair === 1 || wheelchair === 2 ? wheelchair : 0)
  })

  const agencyIndex = new Map(agencies.map((a, i) => [a.id, i]))
  const routes: RawFeed['routes'] = {
    ids: [],
    agency: [],
    shortName: [],
    longName: [],
    type: [],
    color: [],
    textColor: [],
  }
  const routeIndex = new Map<string, number>()
  await readFile(source, 'routes.txt', true, report, (row, h) => {
    const id = text(row, h.col('route_id'))
    if (!id) bad('route_id is empty')
    if (routeIndex.has(id)) bad(`route_id ${id} appears twice`)
    const type = Number(text(row, h.col('route_type')))
    if (!Number.isInteger(type) || type < 0) bad(`route ${id}: route_type ${JSON.stringify(row[h.col('route_type')])}`)
    const agencyId = text(row, h.col('agency_id'))
    routeIndex.set(id, routes.ids.length)
    routes.ids.push(id)
    routes.agency.push(agencyId ? (agencyIndex.get(agencyId) ?? -1) : agencies.length === 1 ? 0 : -1)
    routes.shortName.push(text(row, h.col('route_short_name')))
    routes.longName.push(text(row, h.col('route_long_name')))
    routes.type.push(type)
    routes.color.push(parseColor(text(row, h.col('route_color'))))
    routes.textColor.push(parseColor(text(row, h.col('route_text_color'))))
  })

  const calendar = new ServiceCalendar()
  const hasCalendar = await readFile(source, 'calendar.txt', false, report, (row, h) => {
    const id = text(row, h.col('service_id'))
    if (!id) bad('service_id is empty')
    const start = parseGtfsDate(text(row, h.col('start_date')))
    const end = parseGtfsDate(text(row, h.col('end_date')))
    if (Number.isNaN(start) || Number.isNaN(end)) bad(`service ${id}: start_date or end_date is not YYYYMMDD`)
    let weekdays = 0
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
    days.forEach((day, i) => {
      if (text(row, h.col(day)) === '1') weekdays |= 1 << i
    })
    calendar.setWeekly(calendar.intern(id), weekdays, start, end)
  })
  const hasDates = await readFile(source, 'calendar_dates.txt', false, report, (row, h) => {
    const id = text(row, h.col('service_id'))
    const day = parseGtfsDate(text(row, h.col('date')))
    const type = Number(text(row, h.col('exception_type')))
    if (!id || Number.isNaN(day) || (type !== 1 && type !== 2)) bad('service_id, date or exception_type not usable')
    calendar.setException(calendar.intern(id), day, type as 1 | 2)
  })
  if (!hasCalendar && !hasDates) throw new Error(`${source.description}: neither calendar.txt nor calendar_dates.txt`)

  const intern = interner()
  const trips: RawFeed['trips'] = { ids: [], route: [], service: [], headsign: [], direction: [], shape: [] }
  const tripIndex = new Map<string, number>()
  const shapeIndex = new Map<string, number>()
  const shapeIds: string[] = []
  const shapeOf = (id: string): number => {
    let shape = shapeIndex.get(id)
    if (shape === undefined) {
      shape = shapeIds.length
      shapeIndex.set(id, shape)
      shapeIds.push(id)
    }
    return shape
  }
  // Read as records (the route looked up by its bytes, a string only for the fields kept): a country has 300k trips.
  const routeKeys = new ByteKeys(routeIndex)
  let tripCols: Record<string, number> | undefined
  await readRecords(source, 'trips.txt', true, report, (row, h) => {
    tripCols ??= {
      id: h.col('trip_id'),
      route: h.col('route_id'),
      service: h.col('service_id'),
      headsign: h.col('trip_headsign'),
      direction: h.col('direction_id'),
      shape: h.col('shape_id'),
    }
    const c = tripCols
    const id = row.text(c.id)
    if (!id) bad('trip_id is empty')
    if (tripIndex.has(id)) bad(`trip_id ${id} appears twice`)
    const route = row.lookup(c.route, routeKeys)
    if (route < 0) bad(`trip ${id}: unknown route_id ${row.text(c.route)}`)
    const serviceId = row.text(c.service)
    // A service only named here runs on no day (calendar rows define days); interning keeps the trip valid.
    const service = calendar.find(serviceId) ?? calendar.intern(serviceId)
    tripIndex.set(id, trips.ids.length)
    trips.ids.push(id)
    trips.route.push(route)
    trips.service.push(service)
    trips.headsign.push(row.isEmpty(c.headsign) ? intern('') : intern(row.text(c.headsign)))
    trips.direction.push(row.isOne(c.direction) ? 1 : row.isZero(c.direction) ? 0 : -1)
    trips.shape.push(row.isEmpty(c.shape) ? -1 : shapeOf(row.text(c.shape)))
  })
  const shapes = await parseShapes(source, shapeIds, shapeIndex, report)

  const frequencies: RawFeed['frequencies'] = new Map()
  await readFile(source, 'frequencies.txt', false, report, (row, h) => {
    const trip = tripIndex.get(text(row, h.col('trip_id')))
    if (trip === undefined) bad(`unknown trip_id ${text(row, h.col('trip_id'))}`)
    const start = parseGtfsTime(text(row, h.col('start_time')))
    const end = parseGtfsTime(text(row, h.col('end_time')))
    const headway = Number(text(row, h.col('headway_secs')))
    if (!(start >= 0) || !(end >= 0) || !Number.isInteger(headway)) bad('start_time, end_time or headway_secs')
    const list = frequencies.get(trip as number) ?? []
    list.push({ start, end, headway, exact: text(row, h.col('exact_times')) === '1' })
    frequencies.set(trip as number, list)
  })

  const stopTimes: RawFeed['stopTimes'] = {
    trip: new IntColumn(),
    seq: new IntColumn(),
    stop: new IntColumn(),
    arr: new IntColumn(),
    dep: new IntColumn(),
    flags: new IntColumn(),
    headsign: new Map(),
  }
  const tripKeys = new ByteKeys(tripIndex)
  const stopKeys = new ByteKeys(stopIndex)
  let cols: Record<string, number> | undefined
  await readRecords(source, 'stop_times.txt', true, report, (row, h) => {
    cols ??= {
      trip: h.col('trip_id'),
      arr: h.col('arrival_time'),
      dep: h.col('departure_time'),
      stop: h.col('stop_id'),
      seq: h.col('stop_sequence'),
      pickup: h.col('pickup_type'),
      // An old revision of the spec's own sample misspells it drop_off_time.
      dropOff: h.col('drop_off_type') >= 0 ? h.col('drop_off_type') : h.col('drop_off_time'),
      headsign: h.col('stop_headsign'),
    }
    const c = cols
    const trip = row.lookup(c.trip, tripKeys)
    if (trip < 0) bad(`unknown trip_id ${row.text(c.trip)}`)
    const stop = row.lookup(c.stop, stopKeys)
    if (stop < 0) bad(`trip ${row.text(c.trip)}: unknown stop_id ${row.text(c.stop)}`)
    const seq = row.number(c.seq)
    if (!Number.isInteger(seq) || seq < 0) bad(`trip ${row.text(c.trip)}: stop_sequence ${row.text(c.seq)}`)
    const arr = row.time(c.arr)
    const dep = row.time(c.dep)
    if (Number.isNaN(arr) || Number.isNaN(dep)) {
      bad(`trip ${row.text(c.trip)}: arrival_time/departure_time ${row.raw(c.arr)}/${row.raw(c.dep)} malformed`)
    }
    let flags = 0
    if (row.isOne(c.pickup)) flags |= NO_PICKUP
    if (row.isOne(c.dropOff)) flags |= NO_DROP_OFF
    if (!row.isEmpty(c.headsign)) stopTimes.headsign.set(stopTimes.trip.length, intern(row.text(c.headsign)))
    stopTimes.trip.push(trip)
    stopTimes.seq.push(seq)
    stopTimes.stop.push(stop)
    stopTimes.arr.push(arr)
    stopTimes.dep.push(dep)
    stopTimes.flags.push(flags)
  })

  const transfers: RawFeed['transfers'] = []
  await readFile(source, 'transfers.txt', false, report, (row, h) => {
    const from = stopIndex.get(text(row, h.col('from_stop_id')))
    const to = stopIndex.get(text(row, h.col('to_stop_id')))
    // Trip- and route-specific transfers are not modelled; stop-to-stop ones are.
    if (from === undefined || to === undefined) return
    const type = Number(text(row, h.col('transfer_type')) || 0)
    const minText = text(row, h.col('min_transfer_time'))
    transfers.push({ from, to, type, minTime: minText === '' ? -1 : Number(minText) })
  })

  return { clock, calendar, agencies, stops, routes, trips, shapes, frequencies, stopTimes, transfers }
}

const SHAPE_COLUMNS = ['shape_id', 'shape_pt_lat', 'shape_pt_lon', 'shape_pt_sequence']

/**
 * The points of the shapes trips name. The file only draws the map: when it cannot be read, or lacks a column, it is
 * reported and left out, and the lines are drawn along their stops.
 */
async function parseShapes(
  source: FeedSource,
  ids: string[],
  index: Map<string, number>,
  report: Report,
): Promise<RawFeed['shapes']> {
  const empty = () => ({ ids, shape: new IntList(), seq: new IntList(), lat: new IntList(), lon: new IntList() })
  if (ids.length === 0) return empty()
  const shapes = empty()
  let cols: number[] | undefined
  let unusable = false
  try {
    const found = await readFile(source, 'shapes.txt', false, report, (row, h) => {
      if (unusable) return
      if (!cols) {
        cols = SHAPE_COLUMNS.map((name) => h.col(name))
        const missing = SHAPE_COLUMNS.filter((_, i) => cols?.[i] === -1)
        if (missing.length > 0) {
          unusable = true
          report('shapes.txt', `no ${missing.join(', ')} column; lines are drawn along their stops`)
          return
        }
      }
      const [idCol, latCol, lonCol, seqCol] = cols
      const shape = index.get(text(row, idCol))
      if (shape === undefined) return // a shape no trip uses
      const lat = Number(text(row, latCol))
      const lon = Number(text(row, lonCol))
      const seq = Number(text(row, seqCol))
      if (text(row, latCol) === '' || text(row, lonCol) === '' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
        bad(`shape ${ids[shape]}: position ${text(row, latCol)},${text(row, lonCol)} is not usable`)
      }
      if (!Number.isInteger(seq) || seq < 0 || seq > 0x7fffffff)
        bad(`shape ${ids[shape]}: shape_pt_sequence ${text(row, seqCol)}`)
      shapes.shape.push(shape)
      shapes.seq.push(seq)
      shapes.lat.push(Math.round(lat * 1e7))
      shapes.lon.push(Math.round(lon * 1e7))
    })
    if (!found) report('shapes.txt', `missing, though trips name shapes; lines are drawn along their stops`)
    return unusable ? empty() : shapes
  } catch (error) {
    report('shapes.txt', `could not be read (${(error as Error).message}); lines are drawn along their stops`)
    return empty()
  }
}

/** Opens, parses and indexes one feed. */
export async function loadTimetable(
  source: FeedSource,
  options: { transferWalkMeters: number; report: Report },
): Promise<Timetable> {
  const started = performance.now()
  const raw = await parseFeed(source, options.report)
  const built = buildTimetable(raw, options)
  const range = raw.calendar.range()
  return {
    ...built,
    stats: {
      agencies: raw.agencies.length,
      stops: built.stopCount,
      routes: built.routeIds.length,
      trips: raw.trips.ids.length,
      tripInstances: built.tripPattern.reduce((n, p) => (p >= 0 ? n + 1 : n), 0),
      stopTimes: built.stArr.length,
      patterns: built.patterns.length,
      services: raw.calendar.size,
      footpaths: built.fpTo.length,
      frequencyTrips: raw.frequencies.size,
      loadSeconds: Math.round((performance.now() - started) / 10) / 100,
      arrayBytes: arrayBytes(built),
      lines: built.lines.routes.length,
      linePaths: built.lines.routes.reduce((n, r) => n + r.paths.length, 0),
      linePoints: built.lines.points,
      ...(range ? { firstServiceDay: formatGtfsDate(range.first), lastServiceDay: formatGtfsDate(range.last) } : {}),
    },
  }
}
