import type {
  CancellationPolicy,
  CarCategory,
  ChangeType,
  ChangeTypePolicy,
  PickupRequirement,
} from '../../../contract/cars.ts'
import { eur, money } from './pricing.ts'
import type { SandboxStation } from './stations.ts'

export type ProfileKind = 'rent' | 'share'
const HOUR = 3_600_000

/** Where a customer reaches the provider; from the providers-file entry's `contact`, with sandbox defaults. */
export interface Contact {
  phone: string
  email: string
  url: string
}

// ---------------------------------------------------------------------------------------------------------------
// Eligibility

/** The youngest driver allowed for a category: LUXURY and SPORTS 25, under 21 only ECONOMY and COMPACT. */
export function minimumAge(category: CarCategory): number {
  if (category === 'LUXURY' || category === 'SPORTS') return 25
  if (category === 'ECONOMY' || category === 'COMPACT') return 18
  return 21
}

// ---------------------------------------------------------------------------------------------------------------
// Cancellation

export interface PolicyInput {
  kind: ProfileKind
  station: SandboxStation
  contact: Contact
  websiteUrl: string
  start: Date
  total: number
  /** Fee for a late cancellation (before pickup): rent one day's rate, share one hour's. */
  lateFee: number
  now: Date
}

const freeUntil = (p: Pick<PolicyInput, 'kind' | 'start'>) =>
  new Date(p.start.getTime() - (p.kind === 'rent' ? 48 : 1) * HOUR)

/** What cancelling at `at` costs: free until the deadline, then the late fee, after pickup the whole price. */
export function cancellationTermsAt(p: PolicyInput, at: Date) {
  const late = Math.min(p.total, p.lateFee)
  if (at < freeUntil(p)) return { fee: eur(0), refund: eur(p.total), description: 'Free cancellation' }
  if (at < p.start) {
    return { fee: eur(late), refund: eur(p.total - late), description: `Late cancellation fee ${money(late)}` }
  }
  return { fee: eur(p.total), refund: eur(0), description: 'No-show: the whole price is charged' }
}

function manualContact(
  p: PolicyInput,
  methods: ('PHONE' | 'EMAIL' | 'PROVIDER_WEBSITE' | 'IN_PERSON')[],
  text: string,
) {
  const c = p.station.manualContact ?? p.contact
  return { methods, phone: c.phone, email: c.email, url: c.url, instructions: text }
}

export function cancellationPolicy(p: PolicyInput): CancellationPolicy {
  const hours = p.kind === 'rent' ? 48 : 1
  const free = freeUntil(p)
  const late = Math.min(p.total, p.lateFee)
  const lateText = p.kind === 'rent' ? "one day's rate" : "one hour's rate"
  return {
    availability: p.station.manualContact ? 'REQUIRES_MANUAL_CONTACT' : 'AVAILABLE_VIA_API',
    ...(p.station.manualContact
      ? {
          manualContact: manualContact(
            p,
            ['PHONE', 'EMAIL', 'PROVIDER_WEBSITE'],
            `This station is run by a franchise partner: cancel by phone or e-mail quoting the booking reference.`,
          ),
        }
      : {}),
    deadlines: [
      { deadline: free.toISOString(), terms: cancellationTermsAt(p, new Date(free.getTime() - 1)) },
      { deadline: p.start.toISOString(), terms: cancellationTermsAt(p, new Date(p.start.getTime() - 1)) },
    ],
    currentTerms: cancellationTermsAt(p, p.now),
    conditions: [
      `Free cancellation until ${hours} hour${hours === 1 ? '' : 's'} before pickup.`,
      `Later cancellations cost ${lateText} (${money(late)}).`,
      'Without cancellation, a booking not picked up is charged in full.',
    ],
    sections: [
      {
        title: 'Cancellation',
        text: `You can cancel **free of charge until ${hours} h before pickup**. After that, ${lateText} is charged; the rest is refunded.`,
        order: 0,
      },
      {
        title: 'No-show',
        text: 'If the car is not picked up and the booking was not cancelled, the **whole price** is charged.',
        order: 1,
      },
    ],
    policyUrl: `${p.websiteUrl}/terms/cancellation`,
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Changes

export const CHANGE_FEE = 2500

/** The change fee due at `at` for RENTAL_TIMES: free until the free-cancellation deadline, then CHANGE_FEE (rent). */
export function changeFeeAt(p: Pick<PolicyInput, 'kind' | 'start'>, at: Date): number {
  return p.kind === 'rent' && at >= freeUntil(p) ? CHANGE_FEE : 0
}

export function changePolicies(p: PolicyInput): ChangeTypePolicy[] {
  const manual = !!p.station.manualContact
  const notAvailable = (changeType: ChangeType, condition: string): ChangeTypePolicy => ({
    changeType,
    availability: 'NOT_AVAILABLE',
    conditions: [condition],
  })
  const viaContact = (changeType: ChangeType, methods: Parameters<typeof manualContact>[1], text: string) =>
    ({
      changeType,
      availability: 'REQUIRES_MANUAL_CONTACT',
      manualContact: manualContact(p, methods, text),
    }) satisfies ChangeTypePolicy
  const free = freeUntil(p)
  const feeAt = (at: Date) => changeFeeAt(p, at)
  const rentalTimes: ChangeTypePolicy = manual
    ? viaContact('RENTAL_TIMES', ['PHONE', 'EMAIL'], 'The franchise partner changes rental times by phone or e-mail.')
    : {
        changeType: 'RENTAL_TIMES',
        availability: 'AVAILABLE_VIA_API',
        deadlines: [
          { deadline: free.toISOString(), terms: { fee: eur(0), description: 'Free change' } },
          {
            deadline: p.start.toISOString(),
            terms: {
              fee: eur(feeAt(p.start)),
              description: feeAt(p.start) ? `Change fee ${money(CHANGE_FEE)}` : 'Free change',
            },
          },
        ],
        currentTerms: { fee: eur(feeAt(p.now)), description: feeAt(p.now) ? 'Change fee applies' : 'Free change' },
        conditions: [
          'The price is recalculated at the rates of the booking for the new period.',
          'Rental times can be changed until pickup, subject to availability.',
        ],
      }
  if (p.kind === 'share') {
    return [
      rentalTimes,
      {
        changeType: 'DRIVER_INFO',
        availability: 'AVAILABLE_VIA_API',
        conditions: ['The driver must hold a verified Sandbox Share account.'],
      },
      notAvailable('PICKUP_LOCATION', 'Cancel and book a car at the other spot.'),
      notAvailable('DROPOFF_LOCATION', 'Cars are returned to the spot they were picked up from.'),
      notAvailable('VEHICLE_CATEGORY', 'Each booking is for the exact car parked at the spot.'),
    ]
  }
  return [
    rentalTimes,
    viaContact(
      'DRIVER_INFO',
      ['IN_PERSON', 'PHONE'],
      "The main driver is changed at the counter with the new driver's licence.",
    ),
    notAvailable('PICKUP_LOCATION', 'Cancel and book again to pick up at another station.'),
    viaContact(
      'DROPOFF_LOCATION',
      ['PHONE', 'EMAIL', 'PROVIDER_WEBSITE'],
      'Call or write to us to return the car elsewhere; a one-way fee may apply.',
    ),
    viaContact(
      'VEHICLE_CATEGORY',
      ['IN_PERSON', 'PHONE'],
      'Upgrades are offered at the counter, subject to availability.',
    ),
  ]
}

// ---------------------------------------------------------------------------------------------------------------
// Pickup requirements

export function pickupRequirements(kind: ProfileKind, category: CarCategory): PickupRequirement[] {
  const age = minimumAge(category)
  const license = {
    type: 'INTERNATIONAL_LICENSE',
    description: 'Licences from outside the EU/EEA that are not in Latin script need an International Driving Permit.',
  } as const
  if (kind === 'share') {
    return [
      {
        type: 'MINIMUM_AGE',
        description: `Drivers must be at least ${age} and hold their licence for a year.`,
        value: age,
      },
      license,
    ]
  }
  return [
    {
      type: 'MINIMUM_AGE',
      description: `The main driver must be at least ${age}; drivers under 25 pay a young driver surcharge.`,
      value: age,
    },
    {
      type: 'CREDIT_CARD_REQUIRED',
      description: "A credit card in the main driver's name; a deposit is blocked at pickup.",
      value: category === 'LUXURY' || category === 'SPORTS' ? '1000.00 EUR' : '300.00 EUR',
    },
    {
      type: 'PASSPORT_REQUIRED',
      description: 'A passport or national ID card; drivers from outside the EU need a passport.',
    },
    license,
    {
      type: 'ADDITIONAL_DRIVER_FEE',
      description: 'Each additional driver costs 12.00 EUR per day (upsell ADDITIONAL_DRIVER) and must show a licence.',
      value: 1200,
    },
  ]
}
