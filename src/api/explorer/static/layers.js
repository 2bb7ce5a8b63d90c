// The explorer's map layers over the service's tiles, bottom to top, and the icons of transit vehicles.
//
// Two sources read the same tiles: `mobility` (lines, zones, stops, stations; loaded once per view) and `live`
// (vehicles and transit vehicles; reloaded every few seconds, and capped at z 14 so a refresh asks for few tiles).

export const SOURCE = 'mobility'
export const LIVE_SOURCE = 'live'

const COLORS = {
  scooter: '#f97316',
  bicycle: '#e11d48',
  cargo: '#be185d',
  moped: '#8b5cf6',
  otherVehicle: '#64748b',
  sharing: '#10b981',
  rental: '#2563eb',
  stop: '#facc15',
  stopStroke: '#1f2937',
  service: '#60a5fa',
  parking: '#22c55e',
  noParking: '#ef4444',
  noRiding: '#991b1b',
  slow: '#f59e0b',
  otherZone: '#94a3b8',
  transitFallback: '#334155',
}

const zoneColor = [
  'match',
  ['get', 'zoneKind'],
  'SERVICE_AREA',
  COLORS.service,
  'PARKING',
  COLORS.parking,
  'NO_PARKING',
  COLORS.noParking,
  'NO_RIDING',
  COLORS.noRiding,
  'SLOW',
  COLORS.slow,
  COLORS.otherZone,
]
const radius = (small, large) => ['interpolate', ['linear'], ['zoom'], 8, small, 16, large]

/** Rail and metro wide, trams middling, buses and the rest thin; by zoom. */
const lineWidth = (scale, extra = 0) => [
  'interpolate',
  ['linear'],
  ['zoom'],
  8,
  ['+', extra, ['*', scale * 0.6, ['match', ['get', 'mode'], ['RAIL', 'SUBWAY', 'MONORAIL'], 2, 'TRAM', 1.4, 1]]],
  16,
  ['+', extra * 2, ['*', scale * 2.4, ['match', ['get', 'mode'], ['RAIL', 'SUBWAY', 'MONORAIL'], 2, 'TRAM', 1.5, 1]]],
]
/** Rail drawn over trams over buses where lines share a street. */
const lineOrder = ['match', ['get', 'mode'], 'RAIL', 6, 'SUBWAY', 5, 'MONORAIL', 4, 'TRAM', 3, 'FERRY', 2, 'BUS', 0, 1]

// Transit vehicle properties as the `transit-vehicles` layer has them; the alternatives keep the page working with
// either spelling of the line's name and colour.
const transitColor = ['coalesce', ['get', 'color'], ['get', 'lineColor'], COLORS.transitFallback]
const transitText = ['coalesce', ['get', 'textColor'], ['get', 'lineTextColor'], '#ffffff']
const transitName = ['coalesce', ['get', 'lineName'], ['get', 'line'], ['get', 'name'], '']
const hasBearing = ['has', 'bearing']

const LINE_LAYERS = [
  {
    id: 'lines-casing',
    type: 'line',
    source: SOURCE,
    'source-layer': 'lines',
    layout: { 'line-join': 'round', 'line-cap': 'round', 'line-sort-key': lineOrder },
    paint: { 'line-color': '#ffffff', 'line-width': lineWidth(1, 1.5), 'line-opacity': 0.95 },
  },
  {
    id: 'lines',
    type: 'line',
    source: SOURCE,
    'source-layer': 'lines',
    layout: { 'line-join': 'round', 'line-cap': 'round', 'line-sort-key': lineOrder },
    paint: { 'line-color': ['get', 'color'], 'line-width': lineWidth(1) },
  },
]

const ZONE_LAYERS = [
  {
    id: 'zones-fill',
    type: 'fill',
    source: SOURCE,
    'source-layer': 'zones',
    paint: {
      'fill-color': zoneColor,
      'fill-opacity': ['match', ['get', 'zoneKind'], 'SERVICE_AREA', 0.08, 0.3],
    },
  },
  {
    id: 'zones-outline',
    type: 'line',
    source: SOURCE,
    'source-layer': 'zones',
    paint: { 'line-color': zoneColor, 'line-width': 1.2, 'line-opacity': 0.8 },
  },
]

/** Line names along the lines from z 13 (drawn with the browser's own fonts: the style has no glyphs URL). */
const LINE_LABELS = {
  id: 'lines-labels',
  type: 'symbol',
  source: SOURCE,
  'source-layer': 'lines',
  minzoom: 13,
  layout: {
    'symbol-placement': 'line',
    'symbol-spacing': 280,
    'text-field': ['get', 'name'],
    'text-font': ['Noto Sans Bold'],
    'text-size': ['interpolate', ['linear'], ['zoom'], 13, 10, 17, 13],
    'text-max-angle': 35,
    'text-keep-upright': true,
  },
  paint: { 'text-color': ['get', 'color'], 'text-halo-color': '#ffffff', 'text-halo-width': 2 },
}

const POINT_LAYERS = [
  {
    id: 'stops',
    type: 'circle',
    source: SOURCE,
    'source-layer': 'stops',
    paint: {
      'circle-color': COLORS.stop,
      'circle-radius': radius(2.5, 6),
      'circle-stroke-color': COLORS.stopStroke,
      'circle-stroke-width': 1.2,
    },
  },
  {
    id: 'stations',
    type: 'circle',
    source: SOURCE,
    'source-layer': 'stations',
    paint: {
      'circle-color': ['match', ['get', 'modality'], 'CAR_SHARING', COLORS.sharing, COLORS.rental],
      'circle-radius': radius(4, 9),
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': 2,
    },
  },
  {
    id: 'vehicles',
    type: 'circle',
    source: LIVE_SOURCE,
    'source-layer': 'vehicles',
    paint: {
      'circle-color': [
        'match',
        ['get', 'vehicleType'],
        'SCOOTER',
        COLORS.scooter,
        'BICYCLE',
        COLORS.bicycle,
        'CARGO_BICYCLE',
        COLORS.cargo,
        'MOPED',
        COLORS.moped,
        COLORS.otherVehicle,
      ],
      'circle-radius': radius(1.5, 5.5),
      'circle-opacity': ['case', ['==', ['get', 'available'], false], 0.35, 0.95],
      'circle-stroke-color': '#ffffff',
      'circle-stroke-width': ['interpolate', ['linear'], ['zoom'], 12, 0, 15, 1],
    },
  },
  {
    // A disc in the line's colour with the line's name; with a bearing, a nose points where it heads.
    id: 'transit-vehicles',
    type: 'symbol',
    source: LIVE_SOURCE,
    'source-layer': 'transit-vehicles',
    layout: {
      'icon-image': ['concat', 'transit-vehicle:', transitColor, ':', ['case', hasBearing, 'heading', 'still']],
      'icon-rotate': ['case', hasBearing, ['to-number', ['get', 'bearing'], 0], 0],
      'icon-rotation-alignment': 'map',
      'icon-size': ['interpolate', ['linear'], ['zoom'], 10, 0.6, 15, 1],
      'icon-allow-overlap': true,
      'icon-ignore-placement': true,
      'text-field': ['step', ['zoom'], '', 12, ['to-string', transitName]],
      'text-font': ['Noto Sans Bold'],
      'text-size': 10,
      'text-allow-overlap': true,
      'text-ignore-placement': true,
      'text-rotation-alignment': 'viewport',
    },
    paint: { 'text-color': transitText },
  },
]

/** The layers drawn from the service's tiles, bottom to top: lines under everything else. */
export const DATA_LAYERS = [...LINE_LAYERS, ...ZONE_LAYERS, LINE_LABELS, ...POINT_LAYERS]
/** The layers a click or the counts look at. */
export const QUERY_LAYERS = ['lines', 'zones-fill', 'stops', 'stations', 'vehicles', 'transit-vehicles']

const ICON_SIZE = 34
const ICON_RATIO = 2

/**
 * Draws the icon of a transit vehicle when the map first asks for it (`transit-vehicle:<colour>:<heading|still>`):
 * one image per line colour, so any colour a feed has is drawn crisply without a sprite sheet.
 */
export function transitVehicleIcon(id) {
  const match = /^transit-vehicle:(#[0-9A-Fa-f]{6}|.*):(heading|still)$/.exec(id)
  if (!match) return undefined
  const color = /^#[0-9A-Fa-f]{6}$/.test(match[1]) ? match[1] : COLORS.transitFallback
  const size = ICON_SIZE * ICON_RATIO
  const canvas = document.createElement('canvas')
  canvas.width = size
  canvas.height = size
  const g = canvas.getContext('2d')
  const c = size / 2
  const r = size * 0.32
  g.fillStyle = color
  g.strokeStyle = '#ffffff'
  g.lineWidth = ICON_RATIO * 2
  g.beginPath()
  if (match[2] === 'heading') {
    // A disc with a nose at the top: rotated by the bearing, the nose shows the heading.
    g.moveTo(c, c - r - size * 0.14)
    g.arc(c, c, r, -Math.PI / 2 + 0.75, -Math.PI / 2 - 0.75 + Math.PI * 2)
    g.closePath()
  } else {
    g.arc(c, c, r, 0, Math.PI * 2)
  }
  g.fill()
  g.stroke()
  return { image: g.getImageData(0, 0, size, size), options: { pixelRatio: ICON_RATIO } }
}
