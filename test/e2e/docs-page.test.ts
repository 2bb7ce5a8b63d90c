import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, noChromium, RESULTS } from '../helpers/chromium.ts'
import { type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { listenAll } from '../helpers/listen.ts'

const skipped = noChromium('docs page end-to-end test')

/**
 * The docs page (Swagger UI on the served document) as a newcomer uses it: paste the demo test key under Authorize,
 * open a search, Execute, read a 200. The requests carry the key and go to this service only.
 */
describe('the docs page in Chromium', { skip: skipReason ?? skipped }, () => {
  let h: Harness
  let base: string
  let browser: Browser
  let key: string
  before(async () => {
    h = await startHarness()
    ;[base] = await listenAll(h)
    const demo = await h.apps[0].services.tenants.ensureDemoTenant()
    key = demo?.keys.find((k) => k.environment === 'test' && k.type === 'secret')?.secret as string
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await h?.close()
  })

  /** Opens the operation, presses Execute and answers the status Swagger UI shows and the request it sent. */
  async function execute(page: Page, operationId: string, tag: string) {
    const block = page.locator(`#operations-${tag}-${operationId}`)
    await block.locator('.opblock-summary').first().click()
    const sent = page.waitForRequest((request) => request.url().startsWith(`${base}/mobility-api/v2/`))
    await block.locator('button.execute').click()
    const request = await sent
    const status = block.locator('.live-responses-table .response .response-col_status').first()
    await status.waitFor({ timeout: 30_000 })
    return { status: ((await status.textContent()) ?? '').trim(), request }
  }

  it('runs the searches with "Try it out" once the test key is pasted under Authorize', {
    timeout: 180_000,
  }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    const foreign: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !/^(data|blob):/.test(request.url())) foreign.push(request.url())
    })
    try {
      await page.goto(`${base}/mobility-api/v2/docs/`)
      await page.locator('.swagger-ui .information-container').waitFor({ timeout: 30_000 })

      await page.locator('button.authorize').first().click()
      const apiKey = page.locator('.modal-ux .auth-container').filter({ hasText: 'apiKey' })
      await apiKey.locator('input').fill(key)
      await apiKey.locator('button.authorize').click()
      await page.locator('.modal-ux button.btn-done').first().click()

      const search = await execute(page, 'searchCars', 'Cars')
      assert.equal(search.status, '200')
      assert.equal(search.request.headers().authorization, `Bearer ${key}`)
      assert.match(search.request.postData() ?? '', /"estimatedKilometers":\s*250/)

      // Query parameters come from the examples as well.
      const stations = await execute(page, 'listCarStations', 'Cars')
      assert.equal(stations.status, '200')
      assert.match(stations.request.url(), /latitude=52\.52&longitude=13\.405/)

      const departures = await execute(page, 'listDepartures', 'Public_Transport')
      assert.equal(departures.status, '200')
      assert.match(departures.request.url(), /sandbox-transit%3A900100003\/departures/)

      assert.equal((await execute(page, 'searchMicromobilityVehicles', 'Micro_Mobility')).status, '200')
      assert.deepEqual(foreign, [], 'nothing is loaded from outside the service')
      assert.deepEqual(problems, [])
    } catch (error) {
      mkdirSync(RESULTS, { recursive: true })
      await page.screenshot({ path: `${RESULTS}docs-page-failed.png`, fullPage: true })
      throw error
    } finally {
      await page.close()
    }
  })
})
