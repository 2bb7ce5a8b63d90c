import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'
import { createKey, createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'

/** Debian's Chromium (apt-get install chromium); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url))
const SCREENSHOT = `${RESULTS}explorer.png`

const noChromium = existsSync(CHROMIUM)
  ? undefined
  : `explorer end-to-end test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
if (noChromium) process.stderr.write(`\n*** ${noChromium} ***\n\n`)

// Functions given to page.evaluate run in the browser: they reach the page's `map` (the explorer exposes it) through
// globalThis, as this project compiles without the DOM library.

describe('the explorer map page in Chromium', { skip: skipReason ?? noChromium }, () => {
  let h: Harness
  let base: string
  let browser: Browser
  let key: string
  before(async () => {
    h = await startHarness()
    ;[base] = await listenAll(h)
    const t = await createTenant(h)
    // A map view asks for a few dozen tiles while it flies; the default 100 requests a minute is too tight for that.
    key = (
      await createKey(h, t.tenant.id, {
        type: 'secret',
        environment: 'live',
        name: 'explorer e2e',
        rateLimit: { limit: 10_000, windowSeconds: 60 },
      })
    ).secret
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 60_000 })
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
    for (const asset of [
      '/explorer/assets/maplibre-gl.mjs',
      '/explorer/assets/maplibre-gl-worker.mjs?v=1',
      '/explorer/assets/maplibre-gl.css',
      '/explorer/explorer.js',
    ]) {
      const res = await fetch(`${base}${asset}`)
      assert.equal(res.status, 200, asset)
      await res.arrayBuffer()
    }
    assert.equal((await fetch(`${base}/explorer/assets/package.json`)).status, 404)
    assert.equal((await fetch(`${base}/explorer/assets/..%2F..%2Fpackage.json`)).status, 404)
  })

  it('shows vehicles, stations and zones around Alexanderplatz once a key is pasted', {
    timeout: 120_000,
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

    await page.fill('#api-key', key)
    await page.click('#use-key')
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
            map.queryRenderedFeatures({ layers: ['vehicles'] }).length > 0
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
    assert.ok(Math.abs(seen.center.lat - 52.5219) < 0.001 && Math.abs(seen.center.lng - 13.4132) < 0.001)
    assert.ok(tileRequests.length > 0)
    assert.ok(
      tileRequests.every((r) => r.authorized),
      'every tile request carries the key',
    )
    assert.deepEqual(foreign, [], 'nothing is loaded from outside the service')
    assert.deepEqual(problems, [])

    // The legend and the counts are on the page.
    assert.match((await page.textContent('#legend')) ?? '', /Scooter/)
    await page.waitForFunction(() =>
      /vehicles/.test((globalThis as any).document.getElementById('counts')?.textContent ?? ''),
    )

    mkdirSync(RESULTS, { recursive: true })
    await page.screenshot({ path: SCREENSHOT })
    assert.ok(existsSync(SCREENSHOT))
    await page.close()
  })
})
