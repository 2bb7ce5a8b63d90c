import { Type } from 'typebox'

/** The path parameter of the routes on one booking. */
export const BookingParams = Type.Object({ bookingId: Type.String({ minLength: 1, maxLength: 4096 }) })
/** The OpenAPI description of a car route. */
export const doc = (summary: string, description?: string) => ({
  tags: ['Cars'],
  summary,
  ...(description ? { description } : {}),
  security: [{ apiKey: [] }],
})
