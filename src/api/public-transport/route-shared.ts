import { Type } from 'typebox'
import { providerOutcome } from '../../contract/shared.ts'

export const sourceList = <K extends 'stops' | 'journeys'>(count: K) =>
  Type.Array(providerOutcome(count, `${count === 'stops' ? 'Stops' : 'Journeys'} of this provider in this answer`))
export const Id = (name: string) => Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 300 }) })
export const doc = (summary: string, description?: string) => ({
  tags: ['Public Transport'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})
export const PT_STATUSES = { OPERATION_NOT_SUPPORTED: 400, BOOKING_FAILED: 400, OFFER_EXPIRED: 400 } as const
/** Route access: searching, booking, and reading bookings. */
export const read = { permission: 'public-transport:offer:read' as const }
export const write = { permission: 'public-transport:booking:write' as const, statusOverrides: PT_STATUSES }
export const readBooking = { permission: 'public-transport:booking:read' as const, statusOverrides: PT_STATUSES }
