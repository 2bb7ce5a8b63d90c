import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { DRIVER, searchCars } from '../helpers/cars.ts'
import {
  createTenant,
  type Harness,
  type Res,
  skipReason,
  startHarness,
  type TenantFixture,
} from '../helpers/harness.ts'

const RULE = 'must not contain control characters'
const KEY_RULE = 'property names must not contain control characters'
const ALEX = { latitude: 52.5219, longitude: 13.4132 }

/** 400 INVALID_REQUEST naming `field` with the text rule's message. */
function refused(res: Res, field: string, message = RULE) {
  assert.equal(res.status, 400, res.text)
  assert.equal(res.body.error.code, 'INVALID_REQUEST')
  assert.equal(res.body.error.details[field], message, JSON.stringify(res.body.error.details))
}

describe('text input is clean or refused (issue 14)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  /** A prebooked car offer of a provider that asks for no extra fields but the flight number at airports. */
  const prebookCar = async () => {
    const search = await searchCars(h, t.secret, { estimatedKilometers: 100, limit: 100 })
    assert.equal(search.status, 200, search.text)
    const offer = search.body.data.offers[0]
    const prebook = await h.api('POST', '/cars/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
    return prebook.body.data.prebookedOfferToken as string
  }
  const bookCar = (token: string, driver: Record<string, unknown>, additionalFields: Record<string, unknown> = {}) =>
    h.api('POST', '/cars/bookings', t.secret, {
      prebookedOfferToken: token,
      driver,
      additionalFields: { flightNumber: 'LH1234', ...additionalFields },
    })

  it('refuses NUL, lone surrogates and control characters in a car booking before the provider books, so the token stays usable', async () => {
    const token = await prebookCar()
    refused(await bookCar(token, { ...DRIVER, firstName: 'A\u0000B' }), 'driver.firstName')
    refused(await bookCar(token, { ...DRIVER, firstName: '\ud800' }), 'driver.firstName')
    refused(await bookCar(token, { ...DRIVER, lastName: 'Love\udc00lace' }), 'driver.lastName')
    refused(await bookCar(token, { ...DRIVER, phone: '+49\u0000' }), 'driver.phone')
    refused(await bookCar(token, { ...DRIVER, licenseNumber: 'B072\u007fRRE' }), 'driver.licenseNumber')
    refused(await bookCar(token, { ...DRIVER, firstName: 'Ada\u0085' }), 'driver.firstName')
    // Records with keys of the client's choosing: values and keys both.
    refused(await bookCar(token, DRIVER, { flightNumber: 'LH\u00001234' }), 'additionalFields.flightNumber')
    refused(await bookCar(token, DRIVER, { 'flight\u0000Number': 'LH1234' }), 'additionalFields', KEY_RULE)
    // A key with a line separator (clean text) still has its value checked.
    refused(await bookCar(token, DRIVER, { '\u2028': 'x\u0000' }), 'additionalFields.\u2028')
    refused(
      await bookCar(token, DRIVER, { ['k'.repeat(101)]: 'x' }),
      'additionalFields',
      'property name must NOT have more than 100 characters',
    )
    // Every field is named at once.
    const both = await bookCar(token, { ...DRIVER, firstName: '\u0001', lastName: '\u001f' })
    refused(both, 'driver.firstName')
    refused(both, 'driver.lastName')

    // The same token books with clean data, emoji and other scripts included, and they come back unchanged.
    const driver = { ...DRIVER, firstName: 'Zoë 🚲', lastName: '北京', phone: '+49 30 1234567' }
    const booked = await bookCar(token, driver)
    assert.equal(booked.status, 201, booked.text)
    assert.deepEqual(
      { ...booked.body.data.driver },
      { ...driver },
      'names with emoji and other scripts are kept as sent',
    )
    const read = await h.api('GET', `/cars/bookings/${booked.body.data.bookingId}`, t.secret)
    assert.equal(read.status, 200, read.text)
    assert.equal(read.body.data.driver.lastName, '北京')
  })

  it('lets free text (notes, reasons) hold tab, line feed and carriage return, and nothing else does', async () => {
    const token = await prebookCar()
    const booked = await bookCar(token, DRIVER)
    assert.equal(booked.status, 201, booked.text)
    const path = `/cars/bookings/${booked.body.data.bookingId}`
    const notes = 'Gate B\r\nline 2:\tleft of the exit 🚗'
    const changed = await h.api('PATCH', path, t.secret, { notes })
    assert.equal(changed.status, 200, changed.text)
    assert.equal(changed.body.data.notes, notes)
    refused(await h.api('PATCH', path, t.secret, { notes: 'a\u0000b' }), 'notes')
    refused(await h.api('PATCH', path, t.secret, { notes: 'a\u000bb' }), 'notes')
    refused(await h.api('PATCH', path, t.secret, { notes: '\ud83d' }), 'notes')
    // A name is one line: not even a tab.
    refused(await h.api('PATCH', path, t.secret, { driver: { firstName: 'A\tB' } }), 'driver.firstName')
    refused(await h.api('PATCH', path, t.secret, { driver: { email: 'a@example.com\n' } }), 'driver.email')
    refused(await h.api('POST', `${path}/cancel`, t.secret, { reason: 'bell\u0007' }), 'reason')
    const cancelled = await h.api('POST', `${path}/cancel`, t.secret, { reason: 'Plans changed.\nSorry!' })
    assert.equal(cancelled.status, 200, cancelled.text)
    assert.equal(cancelled.body.data.status, 'CANCELLED')
  })

  it('refuses control characters in query strings and path parameters with 400, never 500', async () => {
    refused(await h.api('GET', '/public-transport/stops?query=Alex%00anderplatz', t.secret), 'query')
    // A query string's escapes that are no UTF-8 (here a lone surrogate in CESU-8) stay the literal text: harmless.
    const raw = await h.api('GET', '/public-transport/stops?query=%ED%A0%80', t.secret)
    assert.equal(raw.status, 200, raw.text)
    refused(
      await h.api('GET', `/cars/stations?latitude=${ALEX.latitude}&longitude=${ALEX.longitude}&cursor=%1B`, t.secret),
      'cursor',
    )
    refused(
      await h.api('GET', `/micromobility/zones?latitude=52.52&longitude=13.4&provider=%C2%85`, t.secret),
      'provider',
    )
    refused(await h.api('GET', '/cars/bookings/%00', t.secret), 'bookingId')
    refused(await h.api('GET', '/cars/bookings/AB%7FCDEFGHJ', t.secret), 'bookingId')
    refused(await h.api('POST', '/cars/bookings/%00/cancel', t.secret), 'bookingId')
    refused(await h.api('GET', '/micromobility/trips/trp_%00', t.secret), 'tripId')
    refused(await h.api('GET', '/micromobility/vehicles/by-qr/%00', t.secret), 'qrCode')
    refused(await h.api('GET', '/public-transport/bookings/%0D%0A', t.secret), 'bookingId')
    refused(await h.api('GET', '/public-transport/subscriptions/%00', t.secret), 'subscriptionId')
    refused(await h.api('GET', '/public-transport/stops/%00/departures', t.secret), 'stopId')
    // Bytes that are no UTF-8 at all, and ids far longer than any id.
    for (const path of ['/micromobility/trips/%ff%fe', '/cars/bookings/%ff%fe', '/cars/bookings/%C0%80']) {
      const res = await h.api('GET', path, t.secret)
      assert.equal(res.status, 400, `${path}: ${res.text}`)
      assert.equal(res.body.error.details.reason, 'MALFORMED_URL')
    }
    for (const path of [`/cars/bookings/${'x'.repeat(5000)}`, `/micromobility/trips/${'x'.repeat(101)}`]) {
      const res = await h.api('GET', path, t.secret)
      assert.equal(res.status, 400, res.text)
      assert.equal(res.body.error.code, 'INVALID_REQUEST')
    }
    // Ids that are clean text but no ids: not found.
    for (const path of ['/cars/bookings/Zoë🚲', '/micromobility/trips/trp_x', '/public-transport/bookings/x']) {
      const res = await h.api('GET', encodeURI(path), t.secret)
      assert.equal(res.status, 404, `${path}: ${res.text}`)
    }
  })

  it('refuses control characters in a ticket customer and a subscription holder, and their tokens stay usable', async () => {
    const stop = async (q: string) => {
      const res = await h.api('GET', `/public-transport/stops?query=${q}`, t.secret)
      return res.body.data.stops[0].stopId
    }
    const departAt = new Date(h.clock().getTime() + 86_400_000)
    departAt.setUTCHours(9, 0, 0, 0)
    const plan = await h.api('POST', '/public-transport/journeys', t.secret, {
      origin: { type: 'stop', stopId: await stop('Hauptbahnhof') },
      destination: { type: 'address', address: 'Alexanderplatz, Berlin' },
      departAt: departAt.toISOString(),
    })
    assert.equal(plan.status, 200, plan.text)
    refused(
      await h.api('POST', '/public-transport/journeys', t.secret, {
        origin: { type: 'stop', stopId: `${await stop('Hauptbahnhof')}\u0000` },
        destination: { type: 'address', address: 'Alexanderplatz\u0000, Berlin' },
      }),
      'destination.address',
    )
    const offer = plan.body.data.journeys[0].ticketOffers[0]
    const prebook = await h.api('POST', '/public-transport/prebook', t.secret, { offerToken: offer.offerToken })
    assert.equal(prebook.status, 200, prebook.text)
    const book = (customer: Record<string, unknown>) =>
      h.api('POST', '/public-transport/bookings', t.secret, {
        prebookedOfferToken: prebook.body.data.prebookedOfferToken,
        customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', ...customer },
      })
    refused(await book({ firstName: 'A\u0000B' }), 'customer.firstName')
    refused(await book({ lastName: '\ud800' }), 'customer.lastName')
    const booked = await book({ firstName: 'Zoë', lastName: '北京 🚆' })
    assert.equal(booked.status, 201, booked.text)
    assert.equal(booked.body.data.customer.lastName, '北京 🚆')

    const next = h.clock()
    const startDate = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString().slice(0, 10)
    const holder = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      dateOfBirth: '1990-12-10',
      identification: { type: 'ID_CARD', number: 'L01X00T47' },
    }
    const subscribe = (changes: Record<string, unknown>, pin?: string) =>
      h.api('POST', '/public-transport/subscriptions', t.secret, {
        productId: 'deutschlandticket',
        holder: { ...holder, ...changes },
        startDate,
        ...(pin === undefined ? {} : { pin }),
      })
    refused(await subscribe({ firstName: 'A\u0000B' }), 'holder.firstName')
    refused(await subscribe({ lastName: 'x\udfff' }), 'holder.lastName')
    refused(
      await subscribe({ identification: { type: 'ID_CARD', number: 'L01\u0000' } }),
      'holder.identification.number',
    )
    refused(await subscribe({}, '12\u00003'), 'pin')
    const created = await subscribe({ firstName: 'Zoë' })
    assert.equal(created.status, 201, created.text)
    assert.equal(created.body.data.holder.firstName, 'Zoë')
  })

  it('refuses control characters in a trip request (userName, userEmail) before the vehicle is held', async () => {
    const search = await h.api('POST', '/micromobility', t.secret, {
      location: ALEX,
      radiusMeters: 3000,
      providers: ['sandbox-scoot'],
      limit: 100,
    })
    assert.equal(search.status, 200, search.text)
    const vehicle = search.body.data.results.find((v: any) => v.isAvailable && v.vehicleToken)
    const reserve = (body: Record<string, unknown>) =>
      h.api('POST', '/micromobility/trips', t.secret, {
        action: 'RESERVE',
        vehicleToken: vehicle.vehicleToken,
        ...body,
      })
    refused(await reserve({ userName: 'Rider\u0000' }), 'userName')
    refused(await reserve({ userName: '\ud800' }), 'userName')
    refused(await reserve({ userEmail: 'rider@example.com\u0000' }), 'userEmail')
    refused(await reserve({ scannedQrCode: 'QR\u0000' }), 'scannedQrCode')
    const reserved = await reserve({ userName: 'Zoë 🛴', userEmail: 'rider@example.com' })
    assert.equal(reserved.status, 201, reserved.text)
  })

  it('admin API: tenant and key fields and path ids', async () => {
    refused(await h.admin('POST', '/tenants', { name: 'A\u0000B' }), 'name')
    refused(await h.admin('POST', '/tenants', { name: '\ud800' }), 'name')
    refused(await h.admin('POST', '/tenants', { name: 'Acme', organization: 'Acme\u0085 GmbH' }), 'organization')
    refused(await h.admin('POST', '/tenants', { name: 'Acme', providers: ['sandbox-rent\u0000'] }), 'providers[0]')
    const created = await h.admin('POST', '/tenants', { name: 'Zoë 北京 🚲' })
    assert.equal(created.status, 201, created.text)
    const tenant = created.body.data.tenant
    assert.equal(tenant.name, 'Zoë 北京 🚲')
    refused(await h.admin('PATCH', `/tenants/${tenant.id}`, { name: 'x\u007f' }), 'name')
    refused(await h.admin('POST', `/tenants/${tenant.id}/keys`, { name: 'key\u0000' }), 'name')
    const key = await h.admin('POST', `/tenants/${tenant.id}/keys`, { name: 'Schlüssel 🔑' })
    assert.equal(key.status, 201, key.text)
    assert.equal(key.body.data.key.name, 'Schlüssel 🔑')

    refused(await h.admin('GET', '/tenants/%00'), 'tenantId')
    refused(await h.admin('PATCH', '/tenants/%00', { name: 'x' }), 'tenantId')
    refused(await h.admin('GET', '/tenants/ten_%00/keys'), 'tenantId')
    refused(await h.admin('POST', '/tenants/%00/keys', {}), 'tenantId')
    refused(await h.admin('DELETE', '/keys/%00'), 'keyId')
    refused(await h.admin('DELETE', '/keys/key_%C2%9F'), 'keyId')
    const malformed = await h.admin('GET', '/tenants/%ff%fe')
    assert.equal(malformed.status, 400, malformed.text)
    assert.equal(malformed.body.error.details.reason, 'MALFORMED_URL')
    assert.equal((await h.admin('GET', `/tenants/${'x'.repeat(5000)}`)).status, 400)
    // Clean text that cannot be an id finds nothing, without asking the store.
    for (const [method, path] of [
      ['GET', '/tenants/not-a-tenant'],
      ['GET', `/tenants/${encodeURIComponent('Zoë 北京')}/keys`],
      ['PATCH', '/tenants/ten_short'],
      ['DELETE', '/keys/key_nope'],
      ['DELETE', `/keys/key_${'A'.repeat(16)}`],
    ]) {
      const res = await h.admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined)
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
      assert.equal(res.body.error.code, 'NOT_FOUND')
    }
    // Below the schemas (the admin CLI, other callers of the service), such ids are not found either, where the
    // store would fail on NUL.
    const { tenants } = h.apps[0].services
    const notFound = (e: any) => e.code === 'NOT_FOUND'
    await assert.rejects(tenants.getTenant('ten_\u0000'), notFound)
    await assert.rejects(tenants.updateTenant('\u0000', { name: 'x' }), notFound)
    await assert.rejects(tenants.listKeys('ten_\u0000AAAAAAAAAAAAAA'), notFound)
    await assert.rejects(tenants.revokeKey('key_\u0000'), notFound)
  })
})
