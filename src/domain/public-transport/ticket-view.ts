import type { ProviderTicket, ProviderTicketBooking } from '../../connectors/types/public-transport.ts'
import type { PtBooking } from '../../contract/public-transport.ts'
import type { PtBookingRow } from '../../store/schema.ts'
import { offerFields } from './journeys.ts'
import type { PtProvider } from './stops.ts'

/** A ticket as the API answers it. */
export const presentTicket = (t: ProviderTicket) => ({
  ticketId: t.ticketId,
  status: t.status,
  productName: t.productName,
  travellerCategory: t.travellerCategory,
  ...(t.holderName ? { holderName: t.holderName } : {}),
  validFrom: t.validFrom.toISOString(),
  validUntil: t.validUntil.toISOString(),
  ...(t.format ? { format: t.format } : {}),
  ...(t.data ? { data: t.data } : {}),
  ...(t.issuedAt ? { issuedAt: t.issuedAt.toISOString() } : {}),
})

/** A ticket booking as the API answers it: the provider's booking `b` and what the service keeps (`row`). */
export const presentTicketBooking = (
  row: PtBookingRow,
  p: { entry: { id: string; name: string } },
  b: ProviderTicketBooking,
  traveller: PtBooking['traveller'],
): PtBooking => ({
  bookingId: row.id,
  status: b.status,
  provider: { id: p.entry.id, name: p.entry.name },
  providerReference: b.reference,
  traveller,
  // Issue 21: the old name, beside the new one until the deprecation period ends.
  customer: traveller,
  offers: b.offers.map((o) => offerFields(p as PtProvider, o)),
  total: b.total,
  tickets: b.tickets.map(presentTicket),
  ...(b.cancellation
    ? {
        cancellation: {
          cancelledAt: b.cancellation.cancelledAt.toISOString(),
          fee: b.cancellation.fee,
          refund: b.cancellation.refund,
        },
      }
    : {}),
  statusHistory: row.statusHistory,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

/** A stored ticket booking as last written (GET /bookings' view): its JSON copy with the dates read back. */
export function storedTicketBooking(row: PtBookingRow, p: { entry: { id: string; name: string } }): PtBooking {
  const record = row.record as { customer: PtBooking['traveller']; booking: ProviderTicketBooking }
  const b = record.booking
  const at = (value: Date | string) => new Date(value)
  const booking: ProviderTicketBooking = {
    ...b,
    offers: b.offers.map((o) => ({ ...o, validFrom: at(o.validFrom), validUntil: at(o.validUntil) })),
    tickets: b.tickets.map((t) => ({
      ...t,
      validFrom: at(t.validFrom),
      validUntil: at(t.validUntil),
      ...(t.issuedAt ? { issuedAt: at(t.issuedAt) } : {}),
    })),
    ...(b.cancellation ? { cancellation: { ...b.cancellation, cancelledAt: at(b.cancellation.cancelledAt) } } : {}),
  }
  return presentTicketBooking(row, p, booking, record.customer)
}
