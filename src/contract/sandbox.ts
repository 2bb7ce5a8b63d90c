/**
 * The `X-Sandbox-Scenario` entries the sandbox providers understand (test keys only), each as
 * `<name>:<providerId>`; without a provider id the scenario applies to every sandbox provider.
 */
export const SANDBOX_SCENARIOS = [
  {
    name: 'provider-error',
    description: 'Every call of the provider fails as a provider error would (PROVIDER_ERROR).',
  },
  {
    name: 'provider-timeout',
    description: 'The provider never answers; the call ends when the service gives up at its deadline.',
  },
  {
    name: 'price-increase',
    description: 'Prebook answers a higher price than search (PRICE_CHANGED, PRICE_INCREASED).',
  },
  {
    name: 'provider-slow',
    description:
      'The provider does the work at once but its answer arrives 1 s later (any provider; a call with a shorter deadline times out).',
  },
  {
    name: 'sold-out',
    description:
      'Cars: search finds no cars; offer details and prebook answer OFFER_EXPIRED (SOLD_OUT). Public transport: journeys come without ticket offers; prebook answers OFFER_EXPIRED (SOLD_OUT).',
  },
  { name: 'booking-fails', description: 'Creating the booking fails with BOOKING_FAILED.' },
  { name: 'booking-pending', description: 'The booking is created PENDING and is CONFIRMED when read next.' },
  {
    name: 'cancel-refused',
    description: 'The provider refuses the cancellation (BOOKING_FAILED, CANCELLATION_REFUSED).',
  },
  {
    name: 'ticket-delay',
    description:
      'Public transport: the tickets of a booking made with this scenario stay PENDING (GET .../tickets answers TICKET_NOT_READY).',
  },
  {
    name: 'transit-alert',
    description:
      'Public transport: S+U Friedrichstraße (stop 900100001 and its platforms) is closed, an alert with effect NO_SERVICE (in en, de and fr) on departures and journey legs there and in GET /public-transport/alerts.',
  },
  {
    name: 'vehicle-rejects',
    description:
      'Micromobility: the vehicle refuses every command of a trip (LOCK, UNLOCK, HONK) with PROVIDER_ERROR (VEHICLE_REJECTED).',
  },
] as const

export type SandboxScenarioName = (typeof SANDBOX_SCENARIOS)[number]['name']
