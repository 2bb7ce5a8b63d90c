import { ApiError } from '../../contract/errors.ts'
import type { TripAction } from '../../contract/micromobility.ts'
import { permanentProviderError, vehicleNotAvailable } from '../refusals.ts'
import { checkEndLocation } from '../shared/end-location.ts'
import type { CallContext } from '../types/common.ts'
import type { FleetSnapshot, MicromobilityConnector, ProviderMicroVehicle } from '../types/micromobility.ts'
import { isNotFound, isRefusal, operatorError, type TompClient } from './client.ts'
import { firstLeg, isObject, type Json, legPosition, positionOf, str } from './map.ts'
import type { TompOptions } from './options.ts'

/**
 * Rides through a TOMP-API 1.x operator. Reserve: a planning for the one asset (`useAssets`), the booking of that
 * offer and COMMIT. Start: SET_IN_USE on the booking's leg (after PREPARE where configured), or all of that at once
 * without a reservation. LOCK and UNLOCK: PAUSE and SET_IN_USE (1.6.1 resumes a paused leg with SET_IN_USE and has
 * no horn). End: FINISH with the end location. Release: CANCEL of the booking.
 *
 * The operator keeps the state, so the trip reference carries what any instance needs (booking, leg, vehicle). When
 * the operator refuses an event, the booking is read to say why, in the reasons the sandbox gives: a second start or
 * end answers as the first did, a finished reservation is RESERVATION_ENDED, a ride not yet started
 * RIDE_NOT_STARTED, a vehicle that does not obey VEHICLE_REJECTED.
 */

export interface TripsDeps {
  client: TompClient
  options: TompOptions
  fleet: {
    get(signal?: AbortSignal): Promise<FleetSnapshot>
    /** The operator's fleet changed through us: the next read, on any instance, must show it. */
    changed(): Promise<void>
  }
}

interface Reference {
  booking: string
  leg: string
  vehicle: string
}

const ENDED_BOOKINGS = new Set(['CANCELLED', 'EXPIRED', 'RELEASED', 'REJECTED', 'FINISHED'])
const RIDING = new Set(['IN_USE', 'PAUSED', 'FINISHING'])

/** The operator's definitive no (a reservation that ended, a ride not started, ...): no retry changes it. */
const refused = (reason: string, message?: string) => permanentProviderError(reason, message)
/** An answer the connector cannot use: the operator's fault, so it counts towards the breaker. */
const badResponse = (message: string) => new ApiError('PROVIDER_ERROR', message, { reason: 'OPERATOR_BAD_RESPONSE' })
const notAvailable = () => vehicleNotAvailable('The operator offers no booking for this vehicle')
const rejected = () => refused('VEHICLE_REJECTED', 'The operator refused the command')
const unknownTrip = () => new ApiError('NOT_FOUND', 'No such booking at this operator')

const encode = (r: Reference) => [r.booking, r.leg, r.vehicle].map(encodeURIComponent).join('|')
function decode(reference: string): Reference | undefined {
  const parts = reference.split('|')
  if (parts.length !== 3) return undefined
  try {
    const [booking, leg, vehicle] = parts.map(decodeURIComponent)
    return booking && leg && vehicle ? { booking, leg, vehicle } : undefined
  } catch {
    return undefined
  }
}

const path = (kind: 'bookings' | 'legs', id: string) => `${kind}/${encodeURIComponent(id)}/events`

/** The customer fields an offer asks for (conditionRequireBookingData), from what the rider gave. */
function customerFor(offer: Json, rider: { email?: string; name?: string }): Json | undefined {
  const conditions = [offer.conditions, firstLeg(offer)?.conditions].flatMap((c) => (Array.isArray(c) ? c : []))
  const asked = conditions
    .filter((c) => isObject(c) && c.conditionType === 'conditionRequireBookingData')
    .flatMap((c) => ((c as Json).requiredFields as unknown[]) ?? [])
  if (asked.length === 0) return undefined
  const [firstName, ...rest] = (rider.name ?? '').trim().split(/\s+/)
  return {
    ...(asked.includes('EMAIL') && rider.email ? { email: rider.email } : {}),
    ...(asked.some((f) => f === 'FIRST_NAME' || f === 'NAME') && firstName ? { firstName } : {}),
    ...(asked.some((f) => f === 'LAST_NAME' || f === 'NAME') && rest.length > 0 ? { lastName: rest.join(' ') } : {}),
  }
}

export function tompTrips(deps: TripsDeps): NonNullable<MicromobilityConnector['trips']> {
  const { client, options } = deps
  const call = (ctx: CallContext, query?: Record<string, string>) => ({
    language: ctx.language,
    signal: ctx.signal,
    ...(query ? { query } : {}),
  })

  async function vehicleFor(vehicleId: string, ctx: CallContext): Promise<ProviderMicroVehicle> {
    const vehicle = (await deps.fleet.get(ctx.signal)).vehicles.find((v) => v.vehicleId === vehicleId)
    if (!vehicle) throw new ApiError('NOT_FOUND', `No vehicle ${vehicleId} at this provider`)
    return vehicle
  }

  /** The operator's view of a booking and its leg, to explain a refusal. */
  async function stateOf(ref: Reference, ctx: CallContext) {
    let booking: unknown
    try {
      booking = await client.get(`bookings/${encodeURIComponent(ref.booking)}`, call(ctx))
    } catch (error) {
      throw isNotFound(error) ? unknownTrip() : operatorError(error)
    }
    const leg = firstLeg(booking, ref.leg)
    return { booking: isObject(booking) ? str(booking.state) : undefined, leg, legState: str(leg?.state) }
  }

  /** Cancels a booking this connector made but could not complete; a failure leaves it to the operator's expiry. */
  async function undo(bookingId: string, ctx: CallContext) {
    const detached = { language: ctx.language, signal: AbortSignal.timeout(options.timeoutMs) }
    await client.post(path('bookings', bookingId), { operation: 'CANCEL' }, detached).catch(() => undefined)
    await deps.fleet.changed()
  }

  /** Planning for the one asset, booking of the offer, COMMIT: the vehicle is held for us. */
  async function book(vehicle: ProviderMicroVehicle, rider: { email?: string; name?: string }, ctx: CallContext) {
    const request = {
      from: { coordinates: { lat: vehicle.latitude, lng: vehicle.longitude } },
      departureTime: ctx.now.toISOString(),
      nrOfTravelers: 1,
      useAssets: [vehicle.vehicleId],
    }
    const planning = await (options.planning === 'offers'
      ? client.post('planning/offers', request, call(ctx))
      : client.post('plannings', request, call(ctx, { 'booking-intent': 'true' }))
    ).catch((error: unknown) => {
      throw isNotFound(error) ? notAvailable() : operatorError(error, 'VEHICLE_NOT_AVAILABLE')
    })
    const offers = isObject(planning) && Array.isArray(planning.options) ? planning.options.filter(isObject) : []
    const assetsOf = (offer: Json) => {
      const leg = firstLeg(offer)
      const main =
        isObject(offer.mainAssetType) && Array.isArray(offer.mainAssetType.assets) ? offer.mainAssetType.assets : []
      return [
        isObject(leg?.asset) ? str(leg.asset.id) : undefined,
        ...main.map((a) => (isObject(a) ? str(a.id) : undefined)),
      ].filter((id) => id !== undefined)
    }
    // The offer for this asset; an offer naming no asset at all is the operator honouring useAssets silently.
    const offer =
      offers.find((o) => assetsOf(o).includes(vehicle.vehicleId)) ?? offers.find((o) => assetsOf(o).length === 0)
    if (!offer) throw notAvailable()
    const offerId = str(offer.id)
    if (!offerId) throw badResponse('The operator made an offer without an id to book')
    const customer = customerFor(offer, rider)
    const booking = await client
      .post('bookings', { id: offerId, ...(customer ? { customer } : {}) }, call(ctx))
      .catch(async (error: unknown) => {
        // A booking whose answer got lost may exist all the same: cancel it rather than leave the vehicle held.
        if (!isRefusal(error) && !isNotFound(error)) await undo(offerId, ctx)
        throw isNotFound(error) ? notAvailable() : operatorError(error, 'VEHICLE_NOT_AVAILABLE')
      })
    const bookingId = (isObject(booking) ? str(booking.id) : undefined) ?? offerId
    await deps.fleet.changed()
    let committed: unknown
    try {
      committed = await client.post(path('bookings', bookingId), { operation: 'COMMIT' }, call(ctx))
      const state = isObject(committed) ? str(committed.state) : undefined
      if (state && state !== 'CONFIRMED' && state !== 'CONDITIONAL_CONFIRMED') throw notAvailable()
    } catch (error) {
      await undo(bookingId, ctx)
      throw error instanceof ApiError || isNotFound(error)
        ? notAvailable()
        : operatorError(error, 'VEHICLE_NOT_AVAILABLE')
    }
    // Without legs the specification takes the booking as its one leg, with the booking's id.
    const legId = str(firstLeg(committed)?.id) ?? str(firstLeg(booking)?.id) ?? bookingId
    return { booking: bookingId, leg: legId, vehicle: vehicle.vehicleId }
  }

  const legEvent = (ref: Reference, event: string, ctx: CallContext, extra: Json = {}) =>
    client.post(path('legs', ref.leg), { event, time: ctx.now.toISOString(), ...extra }, call(ctx))

  /** SET_IN_USE (after PREPARE where configured); a leg already riding answers as the first start did. */
  async function ride(ref: Reference, ctx: CallContext, known?: ProviderMicroVehicle) {
    let leg: unknown
    try {
      if (options.prepareLeg) await legEvent(ref, 'PREPARE', ctx)
      leg = await legEvent(ref, 'SET_IN_USE', ctx)
    } catch (error) {
      if (isNotFound(error)) throw unknownTrip()
      if (!isRefusal(error)) throw operatorError(error)
      const state = await stateOf(ref, ctx)
      if (RIDING.has(state.legState ?? '')) leg = state.leg
      else if (ENDED_BOOKINGS.has(state.booking ?? '') || state.legState === 'CANCELLED')
        throw refused('RESERVATION_ENDED')
      else throw operatorError(error, 'VEHICLE_REJECTED')
    }
    await deps.fleet.changed()
    const location =
      legPosition(isObject(leg) ? leg : undefined) ??
      legPosition((await stateOf(ref, ctx)).leg) ??
      (known ? { latitude: known.latitude, longitude: known.longitude } : undefined)
    if (!location) throw badResponse('The operator did not say where the vehicle is')
    return location
  }

  return {
    async reserve(vehicleId, rider, ctx) {
      const ref = await book(await vehicleFor(vehicleId, ctx), rider, ctx)
      return { reference: encode(ref) }
    },

    async start(vehicleId, reference, rider, ctx) {
      if (reference === undefined) {
        const vehicle = await vehicleFor(vehicleId, ctx)
        const ref = await book(vehicle, rider, ctx)
        try {
          return { reference: encode(ref), location: await ride(ref, ctx, vehicle) }
        } catch (error) {
          await undo(ref.booking, ctx)
          throw error
        }
      }
      const ref = decode(reference)
      if (!ref) throw unknownTrip()
      if (ref.vehicle !== vehicleId) throw refused('RESERVATION_MISMATCH')
      return { reference, location: await ride(ref, ctx) }
    },

    async command(reference, action: TripAction, ctx) {
      if (action === 'HONK') {
        throw refused('COMMAND_NOT_SUPPORTED', 'TOMP-API 1.6.1 has no leg event that sounds the horn')
      }
      const ref = decode(reference)
      if (!ref) throw rejected()
      // SET_IN_USE also starts a leg that never ran: UNLOCK only resumes a paused ride, so it checks first.
      if (action === 'UNLOCK') {
        const state = await stateOf(ref, ctx).catch((error: unknown) => {
          throw error instanceof ApiError && error.code === 'NOT_FOUND' ? rejected() : error
        })
        if (state.legState !== 'PAUSED' && state.legState !== 'IN_USE') throw rejected()
      }
      try {
        await legEvent(ref, action === 'LOCK' ? 'PAUSE' : 'SET_IN_USE', ctx)
      } catch (error) {
        if (isRefusal(error) || isNotFound(error)) throw rejected()
        // 503 is how TOMP says the lock itself failed (a jammed lock): the vehicle did not obey either, which says
        // nothing about the operator (a refusal by its reason), but a later try may work, so it is not definitive.
        if ((error as { status?: number }).status === 503)
          throw new ApiError('PROVIDER_ERROR', 'The vehicle did not obey', { reason: 'VEHICLE_REJECTED' })
        throw operatorError(error)
      }
    },

    async end(reference, endLocation, ctx) {
      const target = checkEndLocation(endLocation)
      const ref = decode(reference)
      if (!ref) throw unknownTrip()
      let leg: unknown
      try {
        const where = target ? { userLocation: { coordinates: { lat: target.latitude, lng: target.longitude } } } : {}
        leg = await legEvent(ref, 'FINISH', ctx, where)
      } catch (error) {
        if (isNotFound(error)) throw unknownTrip()
        if (!isRefusal(error)) throw operatorError(error)
        const state = await stateOf(ref, ctx)
        if (state.legState === 'FINISHED') leg = state.leg
        else if (ENDED_BOOKINGS.has(state.booking ?? '') || state.legState === 'CANCELLED')
          throw refused('RESERVATION_ENDED')
        else if (!RIDING.has(state.legState ?? '')) throw refused('RIDE_NOT_STARTED')
        else throw operatorError(error, 'VEHICLE_REJECTED')
      }
      await deps.fleet.changed()
      const ended = isObject(leg) ? leg : (await stateOf(ref, ctx)).leg
      const location = positionOf(ended?.to) ?? target ?? legPosition(ended)
      if (!location) throw badResponse('The operator did not say where the ride ended')
      return { location }
    },

    async release(reference, ctx) {
      const ref = decode(reference)
      if (!ref) throw unknownTrip()
      try {
        await client.post(path('bookings', ref.booking), { operation: 'CANCEL' }, call(ctx))
      } catch (error) {
        if (isNotFound(error)) throw unknownTrip()
        if (!isRefusal(error)) throw operatorError(error)
        const state = await stateOf(ref, ctx)
        if (RIDING.has(state.legState ?? '') || state.booking === 'STARTED') throw refused('RIDE_IN_PROGRESS')
        // Already over (cancelled, expired, finished): there is nothing left to release.
        if (!ENDED_BOOKINGS.has(state.booking ?? '')) throw operatorError(error, 'CANCELLATION_REFUSED')
      }
      await deps.fleet.changed()
    },
  }
}
