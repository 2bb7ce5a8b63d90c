import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A small GTFS feed in Berlin for the map's lines: a tram T1 with shapes (out and back, plus a trip without
 * shape_id on the same stops), a bus B1 without shapes (both directions and a short working), and a bus B2 that runs
 * between the platforms of station P. Files can be replaced or left out (value `undefined`).
 */

export const LINE_STOPS = {
  S1: [52.52, 13.4],
  S2: [52.52, 13.41],
  S3: [52.52, 13.42],
  S4: [52.52, 13.43],
  P: [52.53, 13.41],
  P_1: [52.5301, 13.4102],
  P_2: [52.5299, 13.4098],
} as const

/** SH_OUT runs S1 → S4 with a bend north between the stops; SH_BACK is the way back along the same points. */
export const SH_OUT: [number, number][] = [
  [13.4, 52.52],
  [13.405, 52.522],
  [13.41, 52.52],
  [13.415, 52.522],
  [13.42, 52.52],
  [13.425, 52.522],
  [13.43, 52.52],
]
export const SH_BACK: [number, number][] = SH_OUT.slice().reverse()

const shapeRows = (id: string, points: [number, number][]) =>
  points.map(([lon, lat], i) => `${id},${lat},${lon},${(i + 1) * 10}`)

/** shapes.txt with the rows of SH_OUT shuffled (the loader orders by shape_pt_sequence) and an unused shape. */
export function shapesTxt(extra: string[] = []): string {
  const out = shapeRows('SH_OUT', SH_OUT)
  const shuffled = [out[3], out[0], out[6], out[1], out[5], out[2], out[4]]
  return [
    'shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence',
    ...shuffled,
    ...shapeRows('SH_BACK', SH_BACK),
    ...shapeRows('SH_UNUSED', [
      [0, 0],
      [1, 1],
    ]),
    ...extra,
  ].join('\n')
}

const times = (trip: string, stops: string[], start = 8 * 60) =>
  stops.map((stop, i) => {
    const minutes = start + i * 3
    const hh = String(Math.floor(minutes / 60)).padStart(2, '0')
    const mm = String(minutes % 60).padStart(2, '0')
    return `${trip},${hh}:${mm}:00,${hh}:${mm}:00,${stop},${i + 1}`
  })

export function lineFeedFiles(): Record<string, string | undefined> {
  return {
    'agency.txt':
      'agency_id,agency_name,agency_url,agency_timezone\nA,Linienbetrieb,https://lines.example,Europe/Berlin',
    'calendar.txt':
      'service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nALL,1,1,1,1,1,1,1,20240101,20351231',
    'stops.txt': [
      'stop_id,stop_name,stop_lat,stop_lon,location_type,parent_station',
      ...Object.entries(LINE_STOPS).map(
        ([id, [lat, lon]]) => `${id},Stop ${id},${lat},${lon},${id === 'P' ? 1 : 0},${id.startsWith('P_') ? 'P' : ''}`,
      ),
    ].join('\n'),
    'routes.txt': [
      'route_id,agency_id,route_short_name,route_long_name,route_type,route_color,route_text_color',
      'T1,A,T1,Tram eins,0,D81B60,',
      'B1,A,B1,Bus eins,3,,',
      'B2,A,,Bus zwei über P,3,,',
    ].join('\n'),
    'trips.txt': [
      'route_id,service_id,trip_id,shape_id',
      'T1,ALL,T1_out,SH_OUT',
      'T1,ALL,T1_back,SH_BACK',
      'T1,ALL,T1_plain,',
      'B1,ALL,B1_out,',
      'B1,ALL,B1_back,',
      'B1,ALL,B1_short,',
      'B2,ALL,B2_out,',
      'B2,ALL,B2_back,',
    ].join('\n'),
    'stop_times.txt': [
      'trip_id,arrival_time,departure_time,stop_id,stop_sequence',
      ...times('T1_out', ['S1', 'S2', 'S3', 'S4']),
      ...times('T1_back', ['S4', 'S3', 'S2', 'S1']),
      ...times('T1_plain', ['S1', 'S2', 'S3', 'S4'], 9 * 60),
      ...times('B1_out', ['S1', 'S2', 'S3', 'S4']),
      ...times('B1_back', ['S4', 'S3', 'S2', 'S1']),
      ...times('B1_short', ['S2', 'S3'], 10 * 60),
      ...times('B2_out', ['S1', 'P_1', 'S4']),
      ...times('B2_back', ['S4', 'P_2', 'S1']),
    ].join('\n'),
    'shapes.txt': shapesTxt(),
  }
}

/** Writes the feed (with `changes` applied) to a new folder and returns its path. */
export function writeLineFeed(changes: Record<string, string | undefined> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'line-feed-'))
  const files = { ...lineFeedFiles(), ...changes }
  for (const [name, content] of Object.entries(files)) {
    if (content !== undefined) writeFileSync(join(dir, name), `${content}\n`)
  }
  return dir
}
