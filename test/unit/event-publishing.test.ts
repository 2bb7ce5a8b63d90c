import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { createEventPublisher, idsAndStatuses } from '../../src/domain/event-publishing.ts'
import type { DomainEvent } from '../../src/domain/events.ts'

/** Every leaf of a JSON value with the path of keys to it. */
function leaves(value: unknown, path: string[] = []): { path: string[]; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v) => leaves(v, path))
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]))
  return [{ path, value }]
}

const KEPT = /^(id|[a-z][A-Za-z]*Id|providerReference|status|cancellationReason|action|code|type|dataRetention)$/
const PERSONAL_KEYS = ['firstName', 'lastName', 'email', 'phone', 'dateOfBirth', 'licenseNumber', 'address', 'name']

describe('event payloads under retention NONE', () => {
  it('keep ids and statuses only, never what sits under a personal or free-form key', () => {
    const key = fc.oneof(
      fc.constantFrom(...PERSONAL_KEYS, 'driver', 'customer', 'holder', 'notes', 'additionalFields', 'userLocation'),
      fc.constantFrom('bookingId', 'tripId', 'status', 'id', 'provider', 'tickets', 'cancellationReason', 'reason'),
      fc.string({ maxLength: 8 }),
    )
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.dictionary(key, tie('node'), { maxKeys: 5 }),
        fc.array(tie('node'), { maxLength: 3 }),
      ),
    })).node
    fc.assert(
      fc.property(fc.dictionary(key, tree, { maxKeys: 6 }), (data) => {
        const reduced = idsAndStatuses(data as Record<string, unknown>)
        for (const leaf of leaves(reduced)) {
          assert.ok(KEPT.test(leaf.path.at(-1) ?? ''), `kept ${leaf.path.join('.')}`)
          for (const step of leaf.path)
            assert.ok(!['driver', 'customer', 'holder', 'notes', 'additionalFields', 'userLocation'].includes(step))
          assert.ok(['string', 'number', 'boolean'].includes(typeof leaf.value))
        }
        // Nothing is made up: every kept leaf is a leaf of the input at the same path.
        const original = leaves(data).map((l) => JSON.stringify([l.path, l.value]))
        for (const leaf of leaves(reduced)) assert.ok(original.includes(JSON.stringify([leaf.path, leaf.value])))
      }),
    )
  })

  it('a booking: ids and statuses of it and of its parts, no empty remainders', () => {
    const reduced = idsAndStatuses({
      bookingId: 'zr1_x',
      status: 'CONFIRMED',
      provider: { id: 'sandbox-rent', name: 'Sandbox Rent' },
      driver: { firstName: 'Ada', email: 'ada@example.com', driverId: 'D1' },
      rentalPeriod: { start: '2026-06-01T08:00:00Z' },
      tickets: [{ ticketId: 'T-1', status: 'ISSUED', holderName: 'Ada Lovelace', data: 'STB1...' }, { validFrom: 'x' }],
      price: { amount: 100, currency: 'EUR' },
    })
    assert.deepEqual(reduced, {
      bookingId: 'zr1_x',
      status: 'CONFIRMED',
      provider: { id: 'sandbox-rent' },
      tickets: [{ ticketId: 'T-1', status: 'ISSUED' }],
    })
  })
})

describe('eventPublisher', () => {
  const log = () => {
    const errors: { obj: any; msg?: string }[] = []
    return { errors, logger: { error: (obj: object, msg?: string) => errors.push({ obj, msg }), warn: () => {} } }
  }

  it('passes STANDARD payloads whole and NONE payloads reduced', async () => {
    const published: DomainEvent[] = []
    const publish = createEventPublisher({ publish: async (e) => void published.push(e) }, log().logger)
    const data = { tripId: 'trp_1', status: 'ACTIVE', userLocation: { latitude: 52.5, longitude: 13.4 } }
    await publish('micromobility.trip.started', { id: 'ten_1', dataRetention: 'STANDARD' }, 'test', data)
    await publish('micromobility.trip.started', { id: 'ten_2', dataRetention: 'NONE' }, 'live', data)
    assert.deepEqual(published, [
      { type: 'micromobility.trip.started', tenantId: 'ten_1', environment: 'test', data },
      {
        type: 'micromobility.trip.started',
        tenantId: 'ten_2',
        environment: 'live',
        data: { tripId: 'trp_1', status: 'ACTIVE' },
      },
    ])
  })

  it('a sink that fails is logged with ids only and never throws', async () => {
    const { errors, logger } = log()
    const publish = createEventPublisher(
      {
        publish: async () => {
          throw new Error('sink down')
        },
      },
      logger,
    )
    await publish('car.booking.confirmed', { id: 'ten_1', dataRetention: 'STANDARD' }, 'live', {
      bookingId: 'B1',
      status: 'CONFIRMED',
      driver: { email: 'ada@example.com' },
    })
    assert.equal(errors.length, 1)
    assert.equal(errors[0].msg, 'event not published')
    assert.deepEqual(errors[0].obj.event.data, { bookingId: 'B1', status: 'CONFIRMED' })
    assert.ok(!JSON.stringify(errors[0].obj.event).includes('ada@'))
  })
})
