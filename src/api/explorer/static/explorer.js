// The explorer: MapLibre GL JS over the service's vector tiles (GET {API}/multimodal/tiles/{z}/{x}/{y}.mvt).
// No basemap and no remote sources: a plain background, the service's layers, and nothing from the internet.
import * as maplibregl from '/explorer/assets/maplibre-gl.mjs'
import { DATA_LAYERS, LIVE_SOURCE, QUERY_LAYERS, SOURCE, transitVehicleIcon } from '/explorer/layers.js'

const API = document.body.dataset.api || '/mobility-api/v2'
const TILES = `${location.origin}${API}/multimodal/tiles/{z}/{x}/{y}.mvt`
const KEY_STORAGE = 'mobility-explorer-key'
/** How often the live layers (vehicles, transit vehicles) are read again. */
const LIVE_REFRESH_MS = 10_000
/** After a 429, the live refresh waits this long. */
const RATE_LIMIT_PAUSE_MS = 60_000

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
  // The live source is reloaded on its own schedule; everything else changes seldom and loads once per view.
  refreshExpiredTiles: false,
  attributionControl: { compact: true, customAttribution: 'Mobility Aggregation Service' },
  style: {
    version: 8,
    sources: {},
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#eef2f6' } }],
  },
  // Every tile request of the service carries the key the user pasted, and asks the service again (an ETag answer
  // costs little) rather than a browser cache that would hand a refresh the tile it had.
  transformRequest: (url, resourceType) => {
    if (resourceType === 'Tile' && apiKey && url.startsWith(`${location.origin}${API}/`)) {
      return { url, headers: { Authorization: `Bearer ${apiKey}` }, cache: 'no-cache' }
    }
    return undefined
  },
})
window.map = map
map.on('styleimagemissing', (event) => {
  const icon = transitVehicleIcon(event.id)
  if (icon && !map.hasImage(event.id)) map.addImage(event.id, icon.image, icon.options)
})
map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right')
map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left')

/** Adds the service's source and layers once a key is there; with a new key, loads every tile again. */
function showData() {
  if (!apiKey || !map.isStyleLoaded()) return
  const source = map.getSource(SOURCE)
  if (source) {
    source.setTiles([TILES])
    map.getSource(LIVE_SOURCE)?.setTiles([TILES])
  } else {
    map.addSource(SOURCE, { type: 'vector', tiles: [TILES], minzoom: 0, maxzoom: 16 })
    map.addSource(LIVE_SOURCE, { type: 'vector', tiles: [TILES], minzoom: 6, maxzoom: 14 })
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
      403: `the key may not read map data (permission multimodal:read), or its tenant does not allow this page's origin ${location.origin} (allowedOrigins)`,
      429: 'rate limit reached; wait a moment',
    }
    if (error.status === 429) pausedUntil = Date.now() + RATE_LIMIT_PAUSE_MS
    status(`Tiles failed: HTTP ${error.status}${reasons[error.status] ? ` (${reasons[error.status]})` : ''}`, true)
  } else if (error.message) {
    status(`Map error: ${error.message}`, true)
  }
})

map.on('idle', () => {
  if (!map.getSource(SOURCE)) return
  const counts = Object.fromEntries(QUERY_LAYERS.map((id) => [id, 0]))
  const lines = new Set()
  for (const feature of map.queryRenderedFeatures({ layers: QUERY_LAYERS })) {
    counts[feature.layer.id]++
    if (feature.layer.id === 'lines') lines.add(feature.properties.id)
  }
  $('counts').textContent =
    `In view: ${lines.size} transit lines, ${counts['transit-vehicles']} transit vehicles, ` +
    `${counts.vehicles} vehicles, ${counts.stations} stations, ${counts.stops} stops, ` +
    `${counts['zones-fill']} zone parts (zoom ${map.getZoom().toFixed(1)})`
  if (!$('status').classList.contains('error')) status('Tiles loaded.')
})

// Details of a feature on click (text only, never HTML from the data).
map.on('click', (event) => {
  const [feature] = map.queryRenderedFeatures(event.point, { layers: QUERY_LAYERS })
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
for (const id of QUERY_LAYERS) {
  map.on('mouseenter', id, () => {
    map.getCanvas().style.cursor = 'pointer'
  })
  map.on('mouseleave', id, () => {
    map.getCanvas().style.cursor = ''
  })
}

// Live layers: read again every LIVE_REFRESH_MS while the page is seen and the map stands still, without reloading the
// page; MapLibre keeps drawing the old tiles until the new ones are there.
let pausedUntil = 0
let liveRefreshes = 0
setInterval(() => {
  if (!apiKey || !map.getSource(LIVE_SOURCE) || document.visibilityState !== 'visible') return
  if (map.isMoving() || Date.now() < pausedUntil) return
  map.refreshTiles(LIVE_SOURCE)
  liveRefreshes++
  document.body.dataset.liveRefreshes = String(liveRefreshes)
}, LIVE_REFRESH_MS)

// The key. Secret keys work too, but do not belong in a page: say so.
const warnAboutKey = (key) => {
  $('key-warning').textContent = /^svc_(live|test)_/.test(key)
    ? 'This is a secret key. Secret keys never belong in a browser: anyone who can open this page can read it. ' +
      'Use a publishable key (svc_pk_live_… or svc_pk_test_…) here.'
    : ''
}
$('api-key').value = apiKey
warnAboutKey(apiKey)
$('key-form').addEventListener('submit', (event) => {
  event.preventDefault()
  apiKey = $('api-key').value.trim()
  warnAboutKey(apiKey)
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
