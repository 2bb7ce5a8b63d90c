import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { createBookingsListRepo } from '../../../src/store/bookings-list-repo.ts'
import { createCarBookingsRepo } from '../../../src/store/car-bookings-repo.ts'
import type { Store } from '../../../src/store/db.ts'
import { createIdempotencyRepo } from '../../../src/store/idempotency-repo.ts'
import { createPublicTransportRepo } from '../../../src/store/public-transport-repo.ts'
import type { CarBookingRecord, TripDetails } from '../../../src/store/records.ts'
import { createTenantsRepo } from '../../../src/store/tenants-repo.ts'
import { createTripsRepo } from '../../../src/store/trips-repo.ts'
import { createWebhooksRepo } from '../../../src/store/webhooks-repo.ts'

/** A stored record with only the fields a storage test looks at (the repository keeps what it is given). */
const partial = <T>(value: object): T => value as unknown as T

/**
 * The repository suite: what the store's repositories answer, the same on every database the service runs on
 * (PGlite embedded, PostgreSQL distributed). Each test works in tenants of its own, so the tests share one database.
 */

export interface RepositoryProfile {
  name: string
  /** A migrated store on an empty database, and how to get rid of it. */
  open(): Promise<{ store: Store; drop(): Promise<void> }>
}

const T = Date.parse('2031-05-05T08:00:00.000Z')
const at = (seconds: number) => new Date(T + seconds * 1000)
const unique = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`

export function repositorySuite(profile: RepositoryProfile, settings: { skip?: string } = {}) {
  describe(`repositories: ${profile.name}`, { skip: settings.skip }, () => {
    let store: Store
    let drop = async () => {}
    before(async () => {
      const opened = await profile.open()
      store = opened.store
      drop = opened.drop
    })
    after(async () => {
      await store?.close()
      await drop()
    })

    /** A tenant of the test's own, created at `createdAt`. */
    async function tenant(createdAt = at(0), extra: Record<string, unknown> = {}) {
      return createTenantsRepo(store.db).insertTenant({ id: unique('ten'), name: 'Tenant', createdAt, ...extra })
    }

    it('tenants: insert with defaults, find, update, page in creation order with the total, allowed origins', async () => {
      const repo = createTenantsRepo(store.db)
      const before = await repo.countTenants()
      const first = await tenant(at(1), { allowedOrigins: ['https://a.example'] })
      assert.equal(first.defaultLanguage, 'en')
      assert.equal(first.dataRetention, 'STANDARD')
      assert.equal(first.providers, null)
      assert.equal(first.reservationWindowSeconds, 600)
      assert.deepEqual(await repo.findTenant(first.id), first)
      assert.equal(await repo.findTenant('no-such-tenant'), undefined)
      const second = await tenant(at(2), { providers: ['sandbox-rent'] })
      assert.equal(await repo.countTenants(), before + 2)
      assert.deepEqual(second.providers, ['sandbox-rent'])

      const updated = await repo.updateTenant(first.id, { name: 'Renamed', emailOptOut: true })
      assert.equal(updated?.name, 'Renamed')
      assert.equal(updated?.emailOptOut, true)
      assert.ok(updated!.updatedAt >= first.updatedAt)
      assert.equal(await repo.updateTenant('no-such-tenant', { name: 'x' }), undefined)

      const all = await repo.listTenants(0, 10_000)
      assert.equal(all.total, before + 2)
      const ids = all.rows.map((r) => r.id)
      assert.ok(ids.indexOf(first.id) < ids.indexOf(second.id), 'oldest first')
      const page = await repo.listTenants(ids.indexOf(first.id), 1)
      assert.deepEqual(
        page.rows.map((r) => r.id),
        [first.id],
      )
      assert.ok((await repo.allowedOrigins()).includes('https://a.example'))
    })

    it('API keys: insert, found with their tenant, listed per tenant, revoked; gone with their tenant', async () => {
      const repo = createTenantsRepo(store.db)
      const owner = await tenant()
      const key = (id: string, createdAt: Date) =>
        repo.insertKey({
          id,
          tenantId: owner.id,
          type: 'secret',
          environment: 'test',
          prefix: 'sk_test_',
          lastFour: 'abcd',
          keyHash: id.padEnd(64, '0'),
          permissions: ['cars:read'],
          createdAt,
        })
      const a = await key(unique('key'), at(1))
      const b = await key(unique('key'), at(2))
      assert.equal(a.rateLimit, 100)
      assert.equal(a.revokedAt, null)
      const found = await repo.findKeyWithTenant(a.id)
      assert.deepEqual(found?.key, a)
      assert.equal(found?.tenant.id, owner.id)
      assert.equal(await repo.findKeyWithTenant('no-such-key'), undefined)
      assert.deepEqual(
        (await repo.listKeys(owner.id)).map((k) => k.id),
        [a.id, b.id],
      )
      const revoked = await repo.revokeKey(a.id, at(3))
      assert.equal(revoked?.revokedAt?.getTime(), at(3).getTime())
      await store.exec(`DELETE FROM tenants WHERE id = '${owner.id}'`)
      assert.deepEqual(await repo.listKeys(owner.id), [])
    })

    it('car bookings: one per token, read within tenant and environment, compare-and-set updates, newest first', async () => {
      const repo = createCarBookingsRepo(store.db)
      const owner = await tenant()
      const other = await tenant()
      const booking = (id: string, nonce: string, createdAt: Date, environment: 'live' | 'test' = 'test') => ({
        id,
        tenantId: owner.id,
        environment,
        providerId: 'sandbox-rent',
        providerReference: 'SR-AAAAAA',
        status: 'CONFIRMED' as const,
        tokenNonce: nonce,
        record: partial<CarBookingRecord>({ vehicle: { make: 'VW' } }),
        statusHistory: [{ status: 'CONFIRMED', time: createdAt.toISOString() }],
        createdAt,
      })
      const nonce = unique('nonce')
      const first = await repo.insert(booking(unique('cb'), nonce, at(1)))
      assert.ok(first)
      assert.equal(first.version, 0)
      assert.deepEqual(first.record, { vehicle: { make: 'VW' } })
      assert.equal(await repo.insert(booking(unique('cb'), nonce, at(2))), undefined, 'the same token again')
      assert.equal(await repo.bookingIdForToken(nonce), first.id)
      assert.equal(await repo.bookingIdForToken('no-such-nonce'), undefined)

      assert.deepEqual(await repo.find(owner.id, 'test', first.id), first)
      assert.equal(await repo.find(owner.id, 'live', first.id), undefined, 'another environment')
      assert.equal(await repo.find(other.id, 'test', first.id), undefined, 'another tenant')

      const cancelled = await repo.update(first.id, 0, { status: 'CANCELLED' }, at(5))
      assert.equal(cancelled?.status, 'CANCELLED')
      assert.equal(cancelled?.version, 1)
      assert.equal(cancelled?.updatedAt.getTime(), at(5).getTime())
      assert.equal(await repo.update(first.id, 0, { status: 'FAILED' }, at(6)), undefined, 'a stale version')
      assert.equal((await repo.find(owner.id, 'test', first.id))?.status, 'CANCELLED')

      const second = await repo.insert(booking(unique('cb'), unique('nonce'), at(3)))
      await repo.insert(booking(unique('cb'), unique('nonce'), at(4), 'live'))
      const listed = await repo.list(owner.id, 'test', 0, 10)
      assert.equal(listed.total, 2)
      assert.deepEqual(
        listed.rows.map((r) => r.id),
        [second!.id, first.id],
      )
      const paged = await repo.list(owner.id, 'test', 1, 1)
      assert.deepEqual(
        paged.rows.map((r) => r.id),
        [first.id],
      )
      assert.equal(paged.total, 2)
      assert.deepEqual(await repo.list(other.id, 'test', 0, 10), { rows: [], total: 0 })
    })

    it('trips: scoped reads, pages by cursor and status, due reservations, compare-and-set updates', async () => {
      const repo = createTripsRepo(store.db)
      const owner = await tenant()
      const trip = (createdAt: Date, status: 'RESERVED' | 'ACTIVE', reservedUntil?: Date) =>
        repo.insert({
          id: unique('trip'),
          tenantId: owner.id,
          environment: 'test',
          providerId: 'sandbox-scoot',
          vehicleId: 'scoot-0001',
          status,
          details: partial<TripDetails>({ vehicle: { type: 'SCOOTER' } }),
          ...(reservedUntil ? { reservedUntil } : {}),
          createdAt,
        })
      const a = await trip(at(1), 'RESERVED', at(100))
      const b = await trip(at(2), 'ACTIVE')
      const c = await trip(at(3), 'RESERVED', at(50))
      assert.equal(a.version, 0)
      assert.equal(a.pausedMs, 0)
      assert.deepEqual(await repo.find(owner.id, 'test', a.id), a)
      assert.equal(await repo.find(owner.id, 'live', a.id), undefined)
      assert.deepEqual(await repo.findById(a.id), a)

      const first = await repo.list(owner.id, 'test', undefined, undefined, 2)
      assert.deepEqual(
        first.map((x) => x.row.id),
        [c.id, b.id],
      )
      const last = first.at(-1)!
      const next = await repo.list(owner.id, 'test', undefined, { at: last.at, id: last.row.id }, 2)
      assert.deepEqual(
        next.map((x) => x.row.id),
        [a.id],
      )
      const reserved = await repo.list(owner.id, 'test', ['RESERVED'], undefined, 10)
      assert.deepEqual(
        reserved.map((x) => x.row.id),
        [c.id, a.id],
      )

      assert.deepEqual(
        (await repo.dueReservations(owner.id, 'test', at(60), 10)).map((t) => t.id),
        [c.id],
      )
      assert.deepEqual(
        (await repo.dueReservations(owner.id, 'test', at(200), 10)).map((t) => t.id),
        [c.id, a.id],
        'the oldest window first',
      )

      const started = await repo.update(a, { status: 'ACTIVE', startedAt: at(10), reservedUntil: null }, at(10))
      assert.equal(started?.status, 'ACTIVE')
      assert.equal(started?.version, 1)
      assert.equal(await repo.update(a, { status: 'CANCELLED' }, at(11)), undefined, 'read before the start')
      assert.deepEqual(
        (await repo.dueReservations(owner.id, 'test', at(200), 10)).map((t) => t.id),
        [c.id],
      )
    })

    it('tickets and subscriptions: one booking per token, scoped reads, compare-and-set, subscriptions newest first', async () => {
      const repo = createPublicTransportRepo(store.db)
      const owner = await tenant()
      const nonce = unique('nonce')
      const ticket = (createdAt: Date, tokenNonce = unique('nonce')) => ({
        id: unique('ptb'),
        tenantId: owner.id,
        environment: 'test' as const,
        providerId: 'sandbox-transit',
        providerReference: 'ST-1',
        status: 'PENDING',
        tokenNonce,
        record: { tickets: [] },
        statusHistory: [],
        createdAt,
      })
      const booked = await repo.insertBooking(ticket(at(1), nonce))
      assert.ok(booked)
      assert.equal(await repo.insertBooking(ticket(at(2), nonce)), undefined, 'the same token again')
      assert.equal(await repo.bookingIdForToken(nonce), booked.id)
      assert.deepEqual(await repo.findBooking(owner.id, 'test', booked.id), booked)
      assert.equal(await repo.findBooking(owner.id, 'live', booked.id), undefined)
      const issued = await repo.updateBooking(booked.id, 0, { status: 'ISSUED' }, at(3))
      assert.equal(issued?.version, 1)
      assert.equal(await repo.updateBooking(booked.id, 0, { status: 'CANCELLED' }, at(4)), undefined)

      const subscription = (createdAt: Date) =>
        repo.insertSubscription({
          id: unique('sub'),
          tenantId: owner.id,
          environment: 'test',
          providerId: 'sandbox-transit',
          providerReference: 'SUB-1',
          productId: 'deutschlandticket',
          status: 'ACTIVE',
          record: { holder: { firstName: 'Ada' } },
          createdAt,
        })
      const older = await subscription(at(1))
      const newer = await subscription(at(2))
      assert.deepEqual(await repo.findSubscription(owner.id, 'test', older.id), older)
      assert.equal(await repo.findSubscription(owner.id, 'live', older.id), undefined)
      const ended = await repo.updateSubscription(older.id, 0, { status: 'CANCELLED' }, at(3))
      assert.equal(ended?.status, 'CANCELLED')
      assert.equal(await repo.updateSubscription(older.id, 0, { status: 'EXPIRED' }, at(4)), undefined)
      const listed = await repo.listSubscriptions(owner.id, 'test', 0, 10)
      assert.equal(listed.total, 2)
      assert.deepEqual(
        listed.rows.map((r) => r.id),
        [newer.id, older.id],
      )
    })

    it('the bookings list: car and ticket bookings of one tenant and environment, newest first, by type, paged', async () => {
      const owner = await tenant()
      const base = {
        tenantId: owner.id,
        providerReference: 'R',
        record: partial<CarBookingRecord>({}),
        statusHistory: [],
      }
      const car = await createCarBookingsRepo(store.db).insert({
        ...base,
        id: unique('cb'),
        environment: 'test',
        providerId: 'sandbox-rent',
        status: 'CONFIRMED',
        tokenNonce: unique('nonce'),
        createdAt: at(1),
      })
      const ticket = await createPublicTransportRepo(store.db).insertBooking({
        ...base,
        id: unique('ptb'),
        environment: 'test',
        providerId: 'sandbox-transit',
        status: 'ISSUED',
        tokenNonce: unique('nonce'),
        createdAt: at(2),
      })
      await createPublicTransportRepo(store.db).insertBooking({
        ...base,
        id: unique('ptb'),
        environment: 'live',
        providerId: 'sandbox-transit',
        status: 'ISSUED',
        tokenNonce: unique('nonce'),
        createdAt: at(3),
      })
      const list = createBookingsListRepo(store.db)
      const both = await list.page(owner.id, 'test', ['CAR', 'PUBLIC_TRANSPORT'], 0, 10)
      assert.equal(both.total, 2)
      assert.deepEqual(
        both.bookings.map((b) => [b.type, b.row.id]),
        [
          ['PUBLIC_TRANSPORT', ticket!.id],
          ['CAR', car!.id],
        ],
      )
      const cars = await list.page(owner.id, 'test', ['CAR'], 0, 10)
      assert.deepEqual(
        cars.bookings.map((b) => b.row.id),
        [car!.id],
      )
      const second = await list.page(owner.id, 'test', ['CAR', 'PUBLIC_TRANSPORT'], 1, 1)
      assert.deepEqual(
        second.bookings.map((b) => b.row.id),
        [car!.id],
      )
      assert.equal(second.total, 2)
      assert.deepEqual(await list.page(owner.id, 'test', [], 0, 10), { bookings: [], total: 0 })
    })

    it('idempotency keys: one holder at a time, taken over after its lease or its 24 hours, settled by its owner only', async () => {
      const repo = createIdempotencyRepo(store.db)
      const owner = await tenant()
      const id = unique('idem')
      const claim = (who: string, now: Date) => ({
        id,
        tenantId: owner.id,
        environment: 'test' as const,
        apiKeyId: 'key',
        salt: 'salt',
        fingerprint: 'fp',
        owner: who,
        now,
        lockedUntil: new Date(now.getTime() + 30_000),
        expiresAt: new Date(now.getTime() + 86_400_000),
      })
      assert.equal(await repo.claim(claim('a', at(0))), true)
      assert.equal(await repo.claim(claim('b', at(10))), false, 'held by a')
      assert.equal(await repo.claim(claim('b', at(31))), true, "a's lease ran out")
      const answer = { status: 201, headers: { 'content-type': 'application/json' }, body: '{}', redacted: false }
      assert.equal(await repo.settle(id, 'a', answer), false, 'a no longer holds it')
      assert.equal(await repo.settle(id, 'b', answer), true)
      const done = await repo.find(id)
      assert.equal(done?.state, 'done')
      assert.equal(done?.status, 201)
      assert.equal(done?.lockedUntil, null)
      assert.equal(await repo.claim(claim('c', at(100))), false, 'answered within its 24 hours')
      // b's claim started the 24 hours again.
      assert.equal(await repo.claim(claim('c', at(31 + 86_399))), false, 'still within its 24 hours')
      assert.equal(await repo.claim(claim('c', at(31 + 86_400))), true, 'after its 24 hours')
      await repo.release(id, 'someone-else')
      assert.ok(await repo.find(id))
      await repo.release(id, 'c')
      assert.equal(await repo.find(id), undefined)

      assert.equal(await repo.claim({ ...claim('d', at(0)), id: unique('idem') }), true)
      assert.ok((await repo.deleteExpired(at(86_400 * 2))) >= 1)
    })

    it('webhook endpoints: scoped reads, pages newest first, failure streaks, disabled once', async () => {
      const repo = createWebhooksRepo(store.db)
      const owner = await tenant()
      const endpoint = (createdAt: Date, environment: 'live' | 'test' = 'test') =>
        repo.insertEndpoint({
          id: unique('we'),
          tenantId: owner.id,
          environment,
          url: 'https://hooks.example/in',
          secret: 'sealed',
          createdAt,
        })
      const a = await endpoint(at(1))
      const b = await endpoint(at(2))
      await endpoint(at(3), 'live')
      assert.equal(a.enabled, true)
      assert.equal(a.events, null)
      assert.equal(await repo.countEndpoints(owner.id, 'test'), 2)
      assert.deepEqual(await repo.findEndpoint(a.id, { tenantId: owner.id, environment: 'test' }), a)
      assert.equal(await repo.findEndpoint(a.id, { tenantId: owner.id, environment: 'live' }), undefined)
      assert.equal(await repo.findEndpoint(a.id, { tenantId: 'someone-else' }), undefined)
      const page = await repo.listEndpoints({ tenantId: owner.id, environment: 'test' }, 0, 10)
      assert.equal(page.total, 2)
      assert.deepEqual(
        page.rows.map((r) => r.id),
        [b.id, a.id],
      )
      assert.equal((await repo.listEndpoints({ tenantId: owner.id }, 0, 10)).total, 3)

      const failing = await repo.markFailing(a.id, at(10))
      assert.equal(failing?.failingSince?.getTime(), at(10).getTime())
      assert.equal((await repo.markFailing(a.id, at(20)))?.failingSince?.getTime(), at(10).getTime(), 'the streak')
      await repo.markHealthy(a.id)
      assert.equal((await repo.findEndpoint(a.id))?.failingSince, null)

      const disabled = await repo.disableEndpoint(a.id, 'FAILING', at(30))
      assert.equal(disabled?.enabled, false)
      assert.equal(disabled?.disabledReason, 'FAILING')
      assert.equal(await repo.disableEndpoint(a.id, 'FAILING', at(31)), undefined, 'already disabled')
      assert.deepEqual(
        (await repo.enabledEndpoints(owner.id, 'test')).map((e) => e.id),
        [b.id],
      )
      const updated = await repo.updateEndpoint(b.id, { url: 'https://hooks.example/new' }, at(40))
      assert.equal(updated?.url, 'https://hooks.example/new')
      assert.equal((await repo.deleteEndpoint(b.id))?.id, b.id)
      assert.equal(await repo.findEndpoint(b.id), undefined)
    })
  })
}
