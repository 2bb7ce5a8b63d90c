import { randomBytes } from 'node:crypto'
import type { ProviderBooking } from '../../connectors/types/cars.ts'
import type { Provider } from '../../connectors/types/common.ts'
import type { Booking, Driver } from '../../contract/car-bookings.ts'
import type { CarBookingRow } from '../../store/schema.ts'
import { providerDisplay } from './present.ts'

const ID_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'
export const BOOKING_ID = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{10}$/

/** 10 characters from an alphabet without look-alikes (0/O, 1/I/L). */
export function newBookingId(): string {
  const bytes = randomBytes(10)
  let id = ''
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length]
  return id
}

export interface StoredExtras {
  driver: Driver
  offerPrice: Booking['offerPrice']
  statusHistory?: Booking['statusHistory']
  additionalFields?: Booking['additionalFields']
  notes?: string
  createdAt?: string
  updatedAt?: string
}

/** A provider's booking as the API shows it; `extras` carries what the platform knows (driver, history) under STANDARD. */
export function presentBooking(
  bookingId: string,
  provider: Provider,
  booking: ProviderBooking,
  retention: 'STANDARD' | 'NONE',
  extras?: StoredExtras,
): Booking {
  const none = retention === 'NONE'
  return {
    bookingId,
    status: booking.status,
    provider: providerDisplay(provider),
    providerReference: booking.reference,
    vehicle: booking.vehicle,
    pickupLocation: booking.pickupLocation,
    dropoffLocation: booking.dropoffLocation,
    rentalPeriod: booking.rentalPeriod,
    // Retention NONE: the driver is the operator account the booking runs on, and offerPrice equals chargedRate.
    driver: none || !extras ? booking.operatorAccount : extras.driver,
    ...(booking.accessMethod ? { accessMethod: booking.accessMethod } : {}),
    offerPrice: none || !extras ? booking.chargedRate : extras.offerPrice,
    chargedRate: booking.chargedRate,
    price: booking.price,
    insurance: booking.insurance,
    refillPolicy: booking.refillPolicy,
    mileageAllowance: booking.mileageAllowance,
    upsells: booking.upsells,
    ...(!none && extras?.additionalFields ? { additionalFields: extras.additionalFields } : {}),
    cancellationPolicy: booking.terms.cancellationPolicy,
    changePolicies: booking.terms.changePolicies,
    ...(!none && extras?.statusHistory ? { statusHistory: extras.statusHistory } : {}),
    ...(booking.cancellation
      ? { cancellation: booking.cancellation, fee: booking.cancellation.fee, refund: booking.cancellation.refund }
      : {}),
    ...(!none && extras?.notes !== undefined ? { notes: extras.notes } : {}),
    dataRetention: retention,
    ...(!none && extras?.createdAt ? { createdAt: extras.createdAt, updatedAt: extras.updatedAt } : {}),
  }
}

/** What the platform keeps of a stored booking besides the provider's copy (retention STANDARD). */
export const extrasOf = (row: CarBookingRow): StoredExtras => {
  const record = row.record
  return {
    driver: record.driver,
    offerPrice: record.offerPrice,
    statusHistory: row.statusHistory as Booking['statusHistory'],
    additionalFields: record.additionalFields,
    notes: record.notes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/** A stored booking as last written (the list's view, and the answer when a newer write won over a request's). */
export const storedBooking = (row: CarBookingRow): Booking => ({
  ...row.record,
  ...extrasOf(row),
  status: row.status,
})
