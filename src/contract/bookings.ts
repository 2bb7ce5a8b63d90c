import { type Static, Type } from 'typebox'
import { Booking } from './car-bookings.ts'
import { OffsetPagination, OffsetQuery, OneOf } from './common.ts'
import { PtBooking } from './public-transport.ts'

export const BOOKING_TYPES = ['CAR', 'PUBLIC_TRANSPORT'] as const
export type BookingType = (typeof BOOKING_TYPES)[number]

export const BookingType = OneOf(
  BOOKING_TYPES,
  'CAR: a car rental or car-sharing booking (the shape GET /cars/bookings/{bookingId} answers); PUBLIC_TRANSPORT: a ticket booking (the shape GET /public-transport/bookings/{bookingId} answers)',
)

/** Comma-separated values of a multi-valued query parameter, as lists in query strings are often written. */
export const COMMA_SEPARATED = 'Repeat the parameter (`type=CAR&type=PUBLIC_TRANSPORT`) or separate values with commas'

export const BookingListQuery = Type.Object(
  {
    ...OffsetQuery.properties,
    type: Type.Optional(
      Type.Array(BookingType, {
        minItems: 1,
        maxItems: 10,
        description: `Only bookings of these types (default: every type the key may read). ${COMMA_SEPARATED}.`,
        examples: [['PUBLIC_TRANSPORT'], ['CAR', 'PUBLIC_TRANSPORT']],
      }),
    ),
  },
  { additionalProperties: false },
)
export type BookingListQuery = Static<typeof BookingListQuery>

const CarBookingItem = Type.Object(
  { type: Type.Literal('CAR'), ...Booking.properties },
  { title: 'CarBookingListItem', description: 'A car booking as last recorded, with `type` CAR' },
)
const TicketBookingItem = Type.Object(
  { type: Type.Literal('PUBLIC_TRANSPORT'), ...PtBooking.properties },
  {
    title: 'PublicTransportBookingListItem',
    description: 'A ticket booking as last recorded, with `type` PUBLIC_TRANSPORT',
  },
)

export const BookingListResult = Type.Object(
  {
    bookings: Type.Array(Type.Union([CarBookingItem, TicketBookingItem]), {
      description: 'Newest first; `type` says which kind each is',
    }),
    pagination: OffsetPagination,
  },
  {
    title: 'BookingList',
    examples: [
      {
        bookings: [
          {
            type: 'PUBLIC_TRANSPORT',
            bookingId: 'T7QX2M9TAB',
            status: 'CONFIRMED',
            provider: { id: 'sandbox-transit', name: 'Sandbox Transit Berlin' },
            providerReference: 'ST-4K2P9Q',
            traveller: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
            customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
            offers: [],
            total: { amount: 380, currency: 'EUR' },
            tickets: [],
            statusHistory: [{ status: 'PENDING', time: '2026-06-01T08:00:00Z', reason: 'created' }],
            createdAt: '2026-06-01T08:00:00Z',
            updatedAt: '2026-06-01T08:00:05Z',
          },
        ],
        pagination: { total: 2, currentPage: 0, limit: 1 },
      },
    ],
  },
)
