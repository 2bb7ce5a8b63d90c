import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import type { Browser } from 'playwright-core'
import { launchChromium, noChromium, RESULTS } from '../helpers/chromium.ts'
import { createKey, createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'

const SCREENSHOT = `${RESULTS}explorer.png`

const skipped = noChromium('explorer end-to-end test')

/**
 * The transit vehicles the service's tiles hold inside the map's view: the z 14 tiles the page's live source reads,
 * fetched and decoded here, so the page is expected to draw vehicles exactly when there are some.
 */
async function transitVehiclesInView(page: import('playwright-core').Page, base: string, key: string) {
  const b = await page.evaluate(() => (globalThis as any).map.getBounds().toArray() as [number, number][])
  const [[west, south], [east, north]] = b
  const z = 14
  const n = 2 ** z
  const tx = (lon: number) => Math.floor(((lon + 180) / 360) * n)
  const ty = (lat: number) => {
    const r = (lat * Math.PI) / 180
    return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)
  }
  let count = 0
  for (let x = tx(west); x <= tx(east); x++) {
    for (let y = ty(north); y <= ty(south); y++) {
      const res = await fetch(`${base}/mobility-api/v2/multimodal/tiles/${z}/${x}/${y}.mvt`, {
        headers: { authorization: `Bearer ${key}`, origin: base },
      })
      assert.equal(res.status, 200)
      const layer = new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))).layers['transit-vehicles']
      for (let i = 0; i < (layer?.length ?? 0); i++) {
        const g = layer.feature(i).toGeoJSON(x, y, z).geometry
        if (g.type !== 'Point') continue
        const [lon, lat] = g.coordinates
        if (lon > west && lon < east && lat > south && lat < north) count++
      }
    }
  }
  return count
}

// Functions given to page.evaluate run in the browser: they reach the page's `map` (the explorer exposes it) through
// globalThis, as this project compiles without the DOM library.

describe('the explorer map page in Chromium', { skip: skipReason ?? skipped }, () => {
  let h: Harness
  let base: string
  let browser: Browser
  let key: string
  let secretKey: string
  before(async () => {
    h = await startHarness()
    ;[base] = await listenAll(h)
    // The page's own origin is allowed, as the demo tenant allows http://localhost:<port>: a publishable key works there.
    const t = await createTenant(h, { allowedOrigins: [base] })
    secretKey = t.secret
    // A map view asks for a few dozen tiles while it flies; the default 100 requests a minute is too tight for that.
    key = (
      await createKey(h, t.tenant.id, {
        type: 'publishable',
        environment: 'live',
        name: 'explorer e2e',
        rateLimit: { limit: 10_000, windowSeconds: 60 },
      })
    ).secret
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await h?.close()
  })

  it('serves the page and MapLibre from the service, without a key', async () => {
    const page = await fetch(`${base}/explorer`)
    assert.equal(page.status, 200)
    assert.match(page.headers.get('content-type') ?? '', /text\/html/)
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
    const html = await page.text()
    assert.match(html, /data-api="\/mobility-api\/v2"/)
    // The page asks for a publishable key and says where secret keys belong.
    assert.match(html, /placeholder="svc_pk_live_…/)
    assert.match(html, /Secret keys \(<code>svc_live_…<\/code>,\s*<code>svc_test_…<\/code>\) never belong in a browser/)
    for (const asset of [
      '/explorer/assets/maplibre-gl.mjs',
      '/explorer/assets/maplibre-gl-worker.mjs?v=1',
      '/explorer/assets/maplibre-gl.css',
      '/explorer/explorer.js',
      '/explorer/layers.js',
    ]) {
      const res = await fetch(`${base}${asset}`)
      assert.equal(res.status, 200, asset)
      await res.arrayBuffer()
    }
    assert.equal((await fetch(`${base}/explorer/assets/package.json`)).status, 404)
    assert.equal((await fetch(`${base}/explorer/assets/..%2F..%2Fpackage.json`)).status, 404)
  })

  it('draws transit lines under vehicles, stations and zones around Alexanderplatz with a publishable key, and refreshes the live layers', {
    timeout: 150_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`)
    })
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`)
    })
    const tileRequests: { url: string; authorized: boolean }[] = []
    page.on('request', (request) => {
      if (request.url().includes('/multimodal/tiles/')) {
        tileRequests.push({ url: request.url(), authorized: !!request.headers().authorization })
      }
    })
    // The page must not reach beyond the service.
    const foreign: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !/^(data|blob):/.test(request.url())) foreign.push(request.url())
    })

    await page.goto(`${base}/explorer`)
    await page.waitForFunction(() => (globalThis as any).map?.isStyleLoaded(), null, { timeout: 30_000 })
    assert.equal(tileRequests.length, 0, 'no tile requests before a key is given')

    // A secret key is used, but the page says it does not belong there.
    await page.fill('#api-key', secretKey)
    await page.click('#use-key')
    assert.match((await page.textContent('#key-warning')) ?? '', /Secret keys never belong in a browser/)
    await page.fill('#api-key', key)
    await page.click('#use-key')
    assert.equal(await page.textContent('#key-warning'), '')
    await page.fill('#place', 'Alexanderplatz')
    await page.click('#go-place')

    const rendered = async () =>
      page.evaluate(() => {
        const map = (globalThis as any).map
        const count = (layer: string) => map.queryRenderedFeatures({ layers: [layer] }).length
        return {
          all: map.queryRenderedFeatures().length,
          vehicles: count('vehicles'),
          stations: count('stations'),
          zones: count('zones-fill'),
          lines: count('lines'),
          lineNames: [
            ...new Set(map.queryRenderedFeatures({ layers: ['lines'] }).map((f: any) => f.properties.name)),
          ].sort(),
          transitVehicles: count('transit-vehicles'),
          zoom: map.getZoom(),
          center: map.getCenter(),
        }
      })
    try {
      await page.waitForFunction(
        () => {
          const map = (globalThis as any).map
          return (
            map.getZoom() > 14.9 &&
            !map.isMoving() &&
            map.areTilesLoaded() &&
            map.queryRenderedFeatures().length > 0 &&
            map.queryRenderedFeatures({ layers: ['vehicles'] }).length > 0 &&
            map.queryRenderedFeatures({ layers: ['lines'] }).length > 0
          )
        },
        null,
        { timeout: 60_000, polling: 250 },
      )
    } catch (error) {
      mkdirSync(RESULTS, { recursive: true })
      await page.screenshot({ path: SCREENSHOT.replace('.png', '-failed.png') })
      throw new Error(
        `no features rendered: ${JSON.stringify(await rendered())}; status: ${await page.textContent('#status')}; ${problems.join(' | ')}; ${(error as Error).message}`,
      )
    }
    const seen = await rendered()
    assert.ok(seen.all > 0)
    assert.ok(seen.vehicles > 0, JSON.stringify(seen))
    assert.ok(seen.zones > 0, 'the sandbox service area covers Alexanderplatz')
    // The sandbox lines through Alexanderplatz are drawn, in their colours, under everything else.
    for (const name of ['S5', 'U2', 'U5', 'U8'])
      assert.ok(seen.lineNames.includes(name), JSON.stringify(seen.lineNames))
    const order = await page.evaluate(() => (globalThis as any).map.getStyle().layers.map((l: any) => l.id))
    assert.deepEqual(order.slice(0, 3), ['background', 'lines-casing', 'lines'], JSON.stringify(order))
    for (const layer of ['zones-fill', 'stops', 'stations', 'vehicles', 'transit-vehicles']) {
      assert.ok(order.indexOf(layer) > order.indexOf('lines'), `${layer} above the lines`)
    }
    const lineColors: string[] = await page.evaluate(() =>
      (globalThis as any).map
        .queryRenderedFeatures({ layers: ['lines'] })
        .map((f: any) => f.properties.color as string),
    )
    assert.ok(lineColors.every((c) => /^#[0-9A-F]{6}$/.test(c)))
    assert.ok(new Set(lineColors).size > 3, 'lines in their own colours')
    assert.ok(Math.abs(seen.center.lat - 52.5219) < 0.001 && Math.abs(seen.center.lng - 13.4132) < 0.001)
    assert.ok(tileRequests.length > 0)
    assert.ok(
      tileRequests.every((r) => r.authorized),
      'every tile request carries the key',
    )
    assert.deepEqual(foreign, [], 'nothing is loaded from outside the service')
    assert.deepEqual(problems, [])

    // The legend has an entry for each layer, and the counts name them.
    assert.match((await page.textContent('#legend')) ?? '', /Scooter/)
    for (const layer of ['lines', 'transit-vehicles', 'vehicles', 'stations', 'stops', 'zones']) {
      assert.ok((await page.locator(`#legend [data-layer="${layer}"]`).count()) > 0, `legend entry for ${layer}`)
    }
    await page.waitForFunction(() =>
      /transit lines, .* transit vehicles, .* vehicles/.test(
        (globalThis as any).document.getElementById('counts')?.textContent ?? '',
      ),
    )

    // Transit vehicles: the layer is in the style, and whatever the tiles in view hold of it is drawn.
    const transitLayer = await page.evaluate(() => {
      const layer = (globalThis as any).map.getLayer('transit-vehicles')
      return layer && { type: layer.type, source: layer.source, sourceLayer: layer.sourceLayer }
    })
    assert.deepEqual(transitLayer, { type: 'symbol', source: 'live', sourceLayer: 'transit-vehicles' })
    const inTiles = await transitVehiclesInView(page, base, key)
    if (inTiles > 0) {
      await page.waitForFunction(
        () => (globalThis as any).map.queryRenderedFeatures({ layers: ['transit-vehicles'] }).length > 0,
        null,
        { timeout: 30_000, polling: 250 },
      )
    } else {
      process.stderr.write(
        'explorer e2e: the tiles in view hold no transit vehicles (yet); only the layer is checked\n',
      )
    }

    // The live layers are read again every 10 s without reloading the page.
    const marker = await page.evaluate(() => {
      ;(globalThis as any).explorerSession = 'same page'
      return (globalThis as any).document.body.dataset.liveRefreshes ?? '0'
    })
    const before = tileRequests.length
    await page.waitForFunction(
      (seen) => Number((globalThis as any).document.body.dataset.liveRefreshes ?? 0) > Number(seen),
      marker,
      { timeout: 25_000, polling: 500 },
    )
    await page.waitForFunction(() => (globalThis as any).map.areTilesLoaded(), null, { timeout: 15_000 })
    assert.ok(
      tileRequests.slice(before).some((r) => /\/tiles\/14\//.test(r.url) && r.authorized),
      'the live tiles were asked for again',
    )
    assert.equal(await page.evaluate(() => (globalThis as any).explorerSession), 'same page')

    mkdirSync(RESULTS, { recursive: true })
    await page.screenshot({ path: SCREENSHOT })
    assert.ok(existsSync(SCREENSHOT))
    await page.close()
  })
})
