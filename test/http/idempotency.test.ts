import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { near, period } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import {
  ALEX,
  assertReplay,
  newKey,
  otherInstance,
  prebookedCar,
  prebookedTickets,
  roomyKey,
  rowsOf,
  scooter,
  send,
  subscriptionBody,
} from '../helpers/idempotency.ts'

describe('Idempotency-Key: replays', { skip: skipReason }, () => {
  let h: Harness
  let tenantId: string
  let key: string
  before(async () => {
    h = await startHarness()
    tenantId = (await createTenant(h)).tenant.id
    key = await roomyKey(h, tenantId)
  })
  after(() => h.close())

  it('a car booking (search → prebook → booking) answers the first answer again, from any instance', async () => {
    const body = await prebookedCar(h, key)
    const idem = newKey()
    const first = await send(h, { key, path: '/cars/bookings', body, idem, instance: 0 })
    assert.equal(first.status, 201, first.text)
    assert.equal(first.body.data.driver.lastName, 'Lovelace')
    const again = await send(h, { key, path: '/cars/bookings', body, idem, instance: otherInstance(h) })
    assertReplay(first, again)
    // Without the key the same request is the domain's business: the token was used.
    const plain = await send(h, { key, path: '/cars/bookings', body })
    assert.equal(plain.status, 409)
    assert.equal(plain.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    // A 4xx the work produced is kept too, under its own key.
    const usedKey = newKey()
    const used = await send(h, { key, path: '/cars/bookings', body, idem: usedKey })
    assert.equal(used.body.error.code, 'OFFER_TOKEN_ALREADY_USED')
    assertReplay(used, await send(h, { key, path: '/cars/bookings', body, idem: usedKey }))
  })

  it('a micromobility reservation (RESERVE with the vehicle token) answers the same trip again', async () => {
    const v = await scooter(h, key)
    const body = { action: 'RESERVE', vehicleToken: v.vehicleToken, userEmail: 'rider@example.com', userName: 'Rider' }
    const idem = newKey()
    const first = await send(h, { key, path: '/micromobility/trips', body, idem, instance: 0 })
    assert.equal(first.status, 201, first.text)
    assert.equal(first.body.data.status, 'RESERVED')
    assert.ok(first.headers.location)
    const again = await send(h, { key, path: '/micromobility/trips', body, idem, instance: otherInstance(h) })
    assertReplay(first, again)
    const plain = await send(h, { key, path: '/micromobility/trips', body })
    assert.notEqual(plain.status, 201, 'without the key the vehicle is taken')
  })

  it('a public-transport ticket booking and a subscription answer the first answer again', async () => {
    const tickets = await prebookedTickets(h, key)
    const idem = newKey()
    const booked = await send(h, { key, path: '/public-transport/bookings', body: tickets, idem, instance: 0 })
    assert.equal(booked.status, 201, booked.text)
    const rebooked = await send(h, {
      key,
      path: '/public-transport/bookings',
      body: tickets,
      idem,
      instance: otherInstance(h),
    })
    assertReplay(booked, rebooked)

    const own = await createTenant(h)
    const ownKey = await roomyKey(h, own.tenant.id)
    const subscription = subscriptionBody(h)
    const subKey = newKey()
    const created = await send(h, {
      key: ownKey,
      path: '/public-transport/subscriptions',
      body: subscription,
      idem: subKey,
    })
    assert.equal(created.status, 201, created.text)
    for (let i = 0; i < 3; i++) {
      const again = await send(h, {
        key: ownKey,
        path: '/public-transport/subscriptions',
        body: subscription,
        idem: subKey,
      })
      assertReplay(created, again)
    }
    const list = await send(h, { key: ownKey, method: 'GET', path: '/public-transport/subscriptions' })
    assert.equal(list.status, 200, list.text)
    assert.equal(list.body.data.subscriptions.length, 1, 'one subscription, however often it was sent')
  })

  it('the same key with another body, path or method answers 422 IDEMPOTENCY_KEY_REUSED; reordered keys are the same body', async () => {
    const idem = newKey()
    const body = { location: ALEX, radiusMeters: 800, providers: ['sandbox-scoot'], limit: 2 }
    const first = await send(h, { key, path: '/micromobility', body, idem })
    assert.equal(first.status, 200, first.text)
    // The same JSON with its keys in another order and other white space is the same request.
    const reordered = await h.request({
      method: 'POST',
      url: '/mobility-api/v2/micromobility',
      key,
      headers: { 'idempotency-key': idem, 'content-type': 'application/json' },
      payload: `{ "limit": 2.0, "providers": ["sandbox-scoot"], "radiusMeters": 800,\n "location": {"longitude": ${ALEX.longitude}, "latitude": ${ALEX.latitude}} }`,
    })
    assertReplay(first, reordered)
    for (const other of [
      { path: '/micromobility', body: { ...body, limit: 3 } },
      { path: '/micromobility', body: { ...body, providers: ['sandbox-scoot', 'sandbox-bike'] } },
      { path: '/cars', body: { pickup: near(), dates: period(h) } },
      { path: '/micromobility?x=1', body },
    ]) {
      const res = await send(h, { key, ...other, idem })
      assert.equal(res.status, 422, `${other.path}: ${res.text}`)
      assert.equal(res.body.error.code, 'INVALID_REQUEST')
      assert.equal(res.body.error.details.reason, 'IDEMPOTENCY_KEY_REUSED')
      assert.ok(res.body.error.details['Idempotency-Key'])
      assert.match(res.body.error.message, /another request/)
    }
    // PATCH after POST under one key: another method.
    const booking = await send(h, { key, path: '/cars/bookings', body: await prebookedCar(h, key), idem: newKey() })
    const patchKey = newKey()
    const path = `/cars/bookings/${booking.body.data.bookingId}`
    const patched = await send(h, { key, method: 'PATCH', path, body: { notes: 'late arrival' }, idem: patchKey })
    assert.equal(patched.status, 200, patched.text)
    assertReplay(
      patched,
      await send(h, { key, method: 'PATCH', path, body: { notes: 'late arrival' }, idem: patchKey }),
    )
    const asPost = await send(h, { key, path: `${path}/cancel`, idem: patchKey })
    assert.equal(asPost.status, 422)
    assert.equal(asPost.body.error.details.reason, 'IDEMPOTENCY_KEY_REUSED')
  })

  it('10 concurrent repeats make one booking; the others get its answer or 409 IDEMPOTENCY_KEY_IN_PROGRESS', async () => {
    const own = await createTenant(h)
    const ownKey = await roomyKey(h, own.tenant.id)
    const body = await prebookedCar(h, ownKey)
    const idem = newKey()
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send(h, { key: ownKey, path: '/cars/bookings', body, idem })),
    )
    const firsts = answers.filter((r) => r.status === 201 && !r.headers['idempotent-replayed'])
    assert.equal(firsts.length, 1, answers.map((r) => r.status).join(','))
    for (const r of answers) {
      if (r === firsts[0]) continue
      if (r.status === 409) {
        assert.equal(r.body.error.code, 'INTERNAL_ERROR', r.text)
        assert.equal(r.body.error.details.reason, 'IDEMPOTENCY_KEY_IN_PROGRESS')
        assert.equal(r.headers['retry-after'], '1')
      } else {
        assertReplay(firsts[0], r)
      }
    }
    const list = await send(h, { key: ownKey, method: 'GET', path: '/bookings' })
    assert.equal(list.status, 200, list.text)
    assert.equal(list.body.data.pagination.total, 1, 'exactly one booking')
    assertReplay(firsts[0], await send(h, { key: ownKey, path: '/cars/bookings', body, idem }))
  })

  it('keys of another API key, environment or tenant do not collide', async () => {
    const t = await createTenant(h)
    const second = await roomyKey(h, t.tenant.id)
    const other = await createTenant(h)
    const idem = newKey()
    const body = (limit: number) => ({ location: ALEX, radiusMeters: 800, providers: ['sandbox-scoot'], limit })
    let limit = 1
    for (const k of [t.secret, second, t.test, other.secret]) {
      // Another body each time: under a shared scope that would be 422.
      const res = await send(h, { key: k, path: '/micromobility', body: body(limit++), idem })
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers['idempotent-replayed'], undefined)
    }
    const again = await send(h, { key: t.test, path: '/micromobility', body: body(3), idem })
    assert.equal(again.headers['idempotent-replayed'], 'true')
  })

  it('refuses malformed keys with 400 naming the header; GET ignores the header', async () => {
    const body = { location: ALEX, radiusMeters: 800, limit: 1 }
    for (const bad of ['', 'x'.repeat(256), 'schlüssel', 'tab\there', 'ok\u007f']) {
      const res = await send(h, { key, path: '/micromobility', body, idem: bad })
      assert.equal(res.status, 400, JSON.stringify(bad))
      assert.equal(res.body.error.code, 'INVALID_REQUEST')
      assert.match(res.body.error.details['Idempotency-Key'], /1 to 255 printable ASCII/)
    }
    for (const good of ['x', 'x'.repeat(255), ' !~{}"', newKey()]) {
      const res = await send(h, { key, path: '/micromobility', body, idem: good })
      assert.equal(res.status, 200, `${JSON.stringify(good)}: ${res.text}`)
    }
    const read = await send(h, { key, method: 'GET', path: '/auth/check', idem: '' })
    assert.equal(read.status, 200)
  })

  it('publishable keys: CORS lets the browser send the key and read the replay header', async () => {
    const t = await createTenant(h, { allowedOrigins: ['https://app.example'] })
    const headers = { origin: 'https://app.example' }
    const body = { location: ALEX, radiusMeters: 800, limit: 1 }
    const idem = newKey()
    const first = await send(h, { key: t.publishable, path: '/micromobility', body, idem, headers })
    const again = await send(h, { key: t.publishable, path: '/micromobility', body, idem, headers })
    assertReplay(first, again)
    assert.match(String(again.headers['access-control-expose-headers']), /Idempotent-Replayed/)
    const preflight = await h.request({
      method: 'OPTIONS',
      url: '/mobility-api/v2/micromobility',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    })
    assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/)
  })

  it('retention NONE keeps nothing personal: the kept answer has no names, contacts or numbers; the replay says so', async () => {
    const none = await createTenant(h, { dataRetention: 'NONE' })
    const noneKey = await roomyKey(h, none.tenant.id)
    const body = await prebookedCar(h, noneKey)
    const idem = newKey()
    const first = await send(h, { key: noneKey, path: '/cars/bookings', body, idem })
    assert.equal(first.status, 201, first.text)
    assert.match(first.body.data.bookingId, /^zr1_/)
    const v = await scooter(h, noneKey, 1)
    const trip = {
      action: 'RESERVE',
      vehicleToken: v.vehicleToken,
      userEmail: 'rider@example.com',
      userName: 'Rita Rider',
    }
    const tripKey = newKey()
    const reserved = await send(h, { key: noneKey, path: '/micromobility/trips', body: trip, idem: tripKey })
    assert.equal(reserved.status, 201, reserved.text)

    // Runs of 24 or more base64url characters are this service's random tokens, hashes and ids, which may spell "Ada"
    // or "1234567" by chance; every personal value is shorter or holds other characters, so it stays in the text.
    const stored = JSON.stringify(await rowsOf(h, none.tenant.id))
    const values = stored.replace(/[A-Za-z0-9_-]{24,}/g, '')
    for (const personal of [
      'Ada',
      'Lovelace',
      'ada@example.com',
      '1234567',
      '1985-12-10',
      'B072RRE2I55',
      'LH1234',
      'rider@',
      'Rita',
    ]) {
      assert.ok(!values.includes(personal), `${personal} is not stored`)
    }
    assert.ok(!stored.includes(idem), 'nor is the key itself')

    const again = await send(h, { key: noneKey, path: '/cars/bookings', body, idem })
    assert.equal(again.status, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.headers['idempotent-redacted'], 'true')
    assert.equal(again.body.data.bookingId, first.body.data.bookingId)
    assert.deepEqual(again.body.data.vehicle, first.body.data.vehicle)
    assert.deepEqual(again.body.data.driver, {})
    assert.equal(again.body.data.additionalFields, undefined)
    // Under STANDARD nothing is taken out.
    const standard = await send(h, { key, path: '/cars/bookings', body: await prebookedCar(h, key), idem })
    assert.equal(standard.headers['idempotent-redacted'], undefined)
  })

  it('the API document describes the header on every POST and PATCH, and the replay headers', async () => {
    const { body: doc } = await h.request({ url: '/mobility-api/v2/openapi.json' })
    const parameter = doc.components.parameters['Idempotency-Key']
    assert.equal(parameter.in, 'header')
    assert.equal(parameter.name, 'Idempotency-Key')
    assert.match(parameter.description, /24 hours/)
    assert.match(parameter.description, /retention NONE/)
    assert.ok(doc.components.headers['Idempotent-Replayed'])
    let writes = 0
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const refs = (operation.parameters ?? []).filter(
          (p: any) => p.$ref === '#/components/parameters/Idempotency-Key',
        )
        const api = path.startsWith('/mobility-api/v2/') && operation.security?.some((s: any) => 'apiKey' in s)
        if (api && (method === 'post' || method === 'patch')) {
          writes++
          assert.equal(refs.length, 1, `${method} ${path}`)
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            // Error answers shared by many operations are components of their own, without the replay headers.
            if (response.$ref) continue
            assert.equal(
              response.headers?.['Idempotent-Replayed']?.$ref,
              '#/components/headers/Idempotent-Replayed',
              `${method} ${path} ${status}`,
            )
          }
        } else {
          assert.equal(refs.length, 0, `${method} ${path}`)
        }
      }
    }
    assert.ok(writes >= 15, `${writes} operations`)
  })
})
