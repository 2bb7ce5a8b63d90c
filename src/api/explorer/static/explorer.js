// The explorer: MapLibre GL JS over the service's vector tiles (GET {API}/multimodal/tiles/{z}/{x}/{y}.mvt).
// No basemap and no remote sources: a plain background, the service's layers, and nothing from the internet.
import * as maplibregl from '/explorer/assets/maplibre-gl.mjs'

const API = document.body.dataset.api || '/mobility-api/v2'
const TILES = `${location.origin}${API}/multimodal/tiles/{z}/{x}/{y}.mvt`
const KEY_STORAGE = 'mobility-explorer-key'
const SOURCE = 'mobility'

const PLACES = [
  { name: 'Alexanderplatz', latitude: 52.5219, longitude: 13.4132, zoom: 15 },
  { name: 'Berlin Hauptbahnhof', latitude: 52.5251, longitude: 13.3694, zoom: 15 },
  { name: 'Brandenburger Tor', latitude: 52.5163, longitude: 13.3777, zoom: 15 },
  { name: 'Potsdamer Platz', latitude: 52.5096, longitude: 13.376, zoom: 15 },
  { name: 'Kottbusser Tor', latitude: 52.499, longitude: 13.418, zoom: 15 },
  { name: 'Warschauer Straße', latitude: 52.5057, longitude: 13.449, zoom: 15 },
  { name: 'Nordbahnhof', latitude: 52.5317, longitude: 13.3886, zoom: 15 },
  { name: 'Berlin (overview)', latitude: 52.52, longitude: 13.405, zoom: 11 },
  { name: 'Flughafen BER', latitude: 52.3667, longitude: 13.5033, zoom: 14 },
]

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

/** The layers drawn from the service's tiles, bottom to top. */
const DATA_LAYERS = [
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
    source: SOURCE,
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
]
const LAYER_IDS = DATA_LAYERS.map((l) => l.id)

const $ = (id) => document.getElementById(id)
const status = (text, isError = false) => {
  $('status').textContent = text
  $('status').classList.toggle('error', isError)
}

let apiKey = sessionStorage.getItem(KEY_STORAGE) || ''

const map = new maplibregl.Map({
  container: 'map',
  center: [13.4132, 52.5219],
  zoom: 12,
  maxZoom: 20,
  hash: false,
  attributionControl: { compact: true, customAttribution: 'Mobility Aggregation Service' },
  style: {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef2f6' } }],
  },
  // Every tile request of the service carries the key the user pasted.
  transformRequest: (url, resourceType) => {
    if (resourceType === 'Tile' && apiKey && url.startsWith(`${location.origin}${API}/`)) {
      return { url, headers: { Authorization: `Bearer ${apiKey}` } }
    }
    return undefined
  },
})
window.map = map
map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right')
map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left')

/** Adds the service's source and layers once a key is there; with a new key, loads every tile again. */
function showData() {
  if (!apiKey || !map.isStyleLoaded()) return
  const source = map.getSource(SOURCE)
  if (source) {
    source.setTiles([TILES])
  } else {
    map.addSource(SOURCE, { type: 'vector', tiles: [TILES], minzoom: 0, maxzoom: 16 })
    for (const layer of DATA_LAYERS) map.addLayer(layer)
  }
  status('Loading tiles…')
}

map.on('load', () => {
  showData()
  if (!apiKey) status('Paste an API key to load the map data.')
})

map.on('error', (event) => {
  const error = event.error || {}
  if (typeof error.status === 'number') {
    const reasons = {
      401: 'the key is missing or not valid',
      403: 'the key may not read map data (permission multimodal:read) or this origin is not allowed',
      429: 'rate limit reached; wait a moment',
    }
    status(`Tiles failed: HTTP ${error.status}${reasons[error.status] ? ` (${reasons[error.status]})` : ''}`, true)
  } else if (error.message) {
    status(`Map error: ${error.message}`, true)
  }
})

map.on('idle', () => {
  if (!map.getSource(SOURCE)) return
  const counts = Object.fromEntries(LAYER_IDS.map((id) => [id, 0]))
  for (const feature of map.queryRenderedFeatures({ layers: LAYER_IDS })) counts[feature.layer.id]++
  $('counts').textContent =
    `In view: ${counts.vehicles} vehicles, ${counts.stations} stations, ${counts.stops} stops, ` +
    `${counts['zones-fill']} zone parts (zoom ${map.getZoom().toFixed(1)})`
  if (!$('status').classList.contains('error')) status('Tiles loaded.')
})

// Details of a feature on click (text only, never HTML from the data).
map.on('click', (event) => {
  const [feature] = map.queryRenderedFeatures(event.point, { layers: LAYER_IDS })
  if (!feature) return
  const box = document.createElement('div')
  box.className = 'popup'
  const title = document.createElement('strong')
  title.textContent = feature.properties.name || feature.properties.id || feature.sourceLayer
  const list = document.createElement('dl')
  for (const [key, value] of Object.entries(feature.properties)) {
    const dt = document.createElement('dt')
    dt.textContent = key
    const dd = document.createElement('dd')
    dd.textContent = String(value)
    list.append(dt, dd)
  }
  box.append(title, list)
  new maplibregl.Popup({ maxWidth: '320px' }).setLngLat(event.lngLat).setDOMContent(box).addTo(map)
})
for (const id of LAYER_IDS) {
  map.on('mouseenter', id, () => {
    map.getCanvas().style.cursor = 'pointer'
  })
  map.on('mouseleave', id, () => {
    map.getCanvas().style.cursor = ''
  })
}

// The key.
$('api-key').value = apiKey
$('key-form').addEventListener('submit', (event) => {
  event.preventDefault()
  apiKey = $('api-key').value.trim()
  if (apiKey) sessionStorage.setItem(KEY_STORAGE, apiKey)
  else sessionStorage.removeItem(KEY_STORAGE)
  $('status').classList.remove('error')
  if (!apiKey) {
    status('Paste an API key to load the map data.')
    return
  }
  if (map.isStyleLoaded()) showData()
  else map.once('load', showData)
})

// Places and coordinates.
const flyTo = (latitude, longitude, zoom) => {
  $('latitude').value = String(latitude)
  $('longitude').value = String(longitude)
  $('zoom').value = String(zoom)
  map.flyTo({ center: [longitude, latitude], zoom, duration: 1200 })
}
for (const place of PLACES) {
  const option = document.createElement('option')
  option.value = place.name
  $('places').append(option)
}
$('place-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const wanted = $('place').value.trim().toLowerCase()
  if (!wanted) return
  const place =
    PLACES.find((p) => p.name.toLowerCase() === wanted) || PLACES.find((p) => p.name.toLowerCase().includes(wanted))
  if (!place) {
    status(`No place called "${$('place').value}"; try one of the list, or coordinates.`, true)
    return
  }
  $('status').classList.remove('error')
  flyTo(place.latitude, place.longitude, place.zoom)
})
$('coords-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const latitude = Number($('latitude').value)
  const longitude = Number($('longitude').value)
  const zoom = $('zoom').value === '' ? map.getZoom() : Number($('zoom').value)
  const valid =
    $('latitude').value !== '' &&
    $('longitude').value !== '' &&
    Math.abs(latitude) <= 85 &&
    Math.abs(longitude) <= 180 &&
    zoom >= 0 &&
    zoom <= 22
  if (!valid) {
    status('Latitude −85..85, longitude −180..180, zoom 0..22.', true)
    return
  }
  $('status').classList.remove('error')
  flyTo(latitude, longitude, zoom)
})
