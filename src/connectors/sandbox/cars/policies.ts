import type { CancellationPolicy, ChangeTypePolicy, PickupRequirement } from '../../../contract/car-bookings.ts'
import type { CarCategory, ChangeType } from '../../../contract/cars.ts'
import { eur } from './pricing.ts'
import type { SandboxStation } from './stations.ts'
import { textsFor } from './texts.ts'

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
  /** The caller's language: the policies' texts are in it. */
  language: string
}

const freeUntil = (p: Pick<PolicyInput, 'kind' | 'start'>) =>
  new Date(p.start.getTime() - (p.kind === 'rent' ? 48 : 1) * HOUR)

/** What cancelling at `at` costs: free until the deadline, then the late fee, after pickup the whole price. */
export function cancellationTermsAt(p: PolicyInput, at: Date) {
  const late = Math.min(p.total, p.lateFee)
  const texts = textsFor(p.language)
  if (at < freeUntil(p)) return { fee: eur(0), refund: eur(p.total), description: texts.freeCancellation }
  if (at < p.start) {
    return { fee: eur(late), refund: eur(p.total - late), description: texts.lateCancellation(late) }
  }
  return { fee: eur(p.total), refund: eur(0), description: texts.noShowTerms }
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
  const texts = textsFor(p.language)
  const lateText = texts.lateRate(p.kind === 'rent')
  return {
    availability: p.station.manualContact ? 'REQUIRES_MANUAL_CONTACT' : 'AVAILABLE_VIA_API',
    ...(p.station.manualContact
      ? {
          manualContact: manualContact(p, ['PHONE', 'EMAIL', 'PROVIDER_WEBSITE'], texts.franchiseCancel),
        }
      : {}),
    deadlines: [
      { deadline: free.toISOString(), terms: cancellationTermsAt(p, new Date(free.getTime() - 1)) },
      { deadline: p.start.toISOString(), terms: cancellationTermsAt(p, new Date(p.start.getTime() - 1)) },
    ],
    currentTerms: cancellationTermsAt(p, p.now),
    conditions: [texts.freeUntil(hours), texts.laterCost(lateText, late), texts.notPickedUp],
    sections: [
      {
        title: texts.cancellationTitle,
        text: texts.cancellationText(hours, lateText),
        order: 0,
      },
      {
        title: texts.noShowTitle,
        text: texts.noShowText,
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
  const texts = textsFor(p.language)
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
    ? viaContact('RENTAL_TIMES', ['PHONE', 'EMAIL'], texts.franchiseTimes)
    : {
        changeType: 'RENTAL_TIMES',
        availability: 'AVAILABLE_VIA_API',
        deadlines: [
          { deadline: free.toISOString(), terms: { fee: eur(0), description: texts.freeChange } },
          {
            deadline: p.start.toISOString(),
            terms: {
              fee: eur(feeAt(p.start)),
              description: feeAt(p.start) ? texts.changeFee(CHANGE_FEE) : texts.freeChange,
            },
          },
        ],
        currentTerms: { fee: eur(feeAt(p.now)), description: feeAt(p.now) ? texts.changeFeeApplies : texts.freeChange },
        conditions: [texts.recalculated, texts.untilPickup],
      }
  if (p.kind === 'share') {
    return [
      rentalTimes,
      {
        changeType: 'DRIVER_INFO',
        availability: 'AVAILABLE_VIA_API',
        conditions: [texts.shareAccount],
      },
      notAvailable('PICKUP_LOCATION', texts.shareOtherSpot),
      notAvailable('DROPOFF_LOCATION', texts.shareReturn),
      notAvailable('VEHICLE_CATEGORY', texts.shareExact),
    ]
  }
  return [
    rentalTimes,
    viaContact('DRIVER_INFO', ['IN_PERSON', 'PHONE'], texts.driverAtCounter),
    notAvailable('PICKUP_LOCATION', texts.rebook),
    viaContact('DROPOFF_LOCATION', ['PHONE', 'EMAIL', 'PROVIDER_WEBSITE'], texts.returnElsewhere),
    viaContact('VEHICLE_CATEGORY', ['IN_PERSON', 'PHONE'], texts.upgrades),
  ]
}

// ---------------------------------------------------------------------------------------------------------------
// Pickup requirements

export function pickupRequirements(kind: ProfileKind, category: CarCategory, language: string): PickupRequirement[] {
  const age = minimumAge(category)
  const texts = textsFor(language)
  const license = {
    type: 'INTERNATIONAL_LICENSE',
    description: texts.drivingPermit,
  } as const
  if (kind === 'share') {
    return [
      {
        type: 'MINIMUM_AGE',
        description: texts.shareAge(age),
        value: age,
      },
      license,
    ]
  }
  return [
    {
      type: 'MINIMUM_AGE',
      description: texts.rentAge(age),
      value: age,
    },
    {
      type: 'CREDIT_CARD_REQUIRED',
      description: texts.creditCard,
      value: category === 'LUXURY' || category === 'SPORTS' ? '1000.00 EUR' : '300.00 EUR',
    },
    {
      type: 'PASSPORT_REQUIRED',
      description: texts.passport,
    },
    license,
    {
      type: 'ADDITIONAL_DRIVER_FEE',
      description: texts.additionalDriver,
      value: 1200,
    },
  ]
}
