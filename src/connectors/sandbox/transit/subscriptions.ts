import { ApiError } from '../../../contract/errors.ts'
import { detail } from '../../../platform/i18n/texts.ts'
import type { CallContext } from '../../types/common.ts'
import type { ProviderSubscription, SubscriptionHolder, SubscriptionProduct } from '../../types/public-transport.ts'
import { pick } from '../common.ts'
import { addMonths, berlinDay, dayOfMonth, firstOfMonth, isDay, lastOfMonth } from './dates.ts'
import { CURRENCY } from './fares.ts'
import type { SubscriptionRecord, TransitStore } from './store.ts'

/**
 * Monthly subscriptions of Sandbox Transit Berlin. All days are Berlin calendar days; a subscription runs in whole
 * calendar months.
 *
 * Subscribing:
 * - an unknown product and one that is not sold (`deutschlandticket-job`: employers only) answer
 *   PRODUCT_NOT_AVAILABLE (reasons UNKNOWN_PRODUCT, EMPLOYER_ONLY);
 * - where the product needs identification (Deutschlandticket), `holder.identification` must be there with a `type`
 *   of ID_CARD, PASSPORT or DRIVING_LICENSE and a `number` of 6 to 12 capital letters or digits, else
 *   INVALID_IDENTIFICATION (`details.reason` MISSING, INVALID_TYPE or INVALID_NUMBER);
 * - where it needs a PIN (VBB-Abo), `pin` must be 4 digits the customer chose, else PIN_REQUIRED (MISSING,
 *   INVALID_FORMAT);
 * - `startDate` must be the first day of a month (INVALID_REQUEST otherwise), not before the current month (the current
 *   month may be bought until its last day, as with the real Deutschlandticket) and at most 12 months ahead.
 *
 * Status: PENDING before the start date, ACTIVE from it, CANCELLED once cancelled (it stays valid until `endDate`),
 * EXPIRED the day after `endDate`. A subscription is billed on the first day of every month it runs
 * (`nextBillingDate`), at the product's price of that month.
 *
 * Cancelling:
 * - before the start date: withdrawn, free (CANCELLED, never runs, no endDate);
 * - during the minimum term (the first month): SUBSCRIPTION_NOT_CANCELLABLE (`details.reason` MINIMUM_TERM,
 *   `details.cancellableFrom` the first day it can be cancelled);
 * - afterwards, on or before the product's deadline day (the 10th) it ends with the current month, after the deadline
 *   with the next month (endDate: that month's last day);
 * - a cancelled subscription answers SUBSCRIPTION_ALREADY_CANCELLED, an expired one SUBSCRIPTION_EXPIRED.
 */

interface ProductDef {
  productId: string
  name: { en: string; de: string; fr: string }
  description: { en: string; de: string; fr: string }
  /** Monthly price in cents from each day on (ascending). */
  prices: [from: string, cents: number][]
  validIn: string[]
  cancellationDeadlineDay: number
  minimumTermMonths: number
  requiresIdentification: boolean
  requiresPin: boolean
  available: boolean
}

/**
 * Deutschlandticket: 49.00 EUR from its launch in May 2023, 58.00 EUR in 2025, 63.00 EUR from January 2026 (the price
 * the federal states set for 2026). The job ticket is 5 % less (with the employer's share on top).
 */
const D_TICKET_PRICES: ProductDef['prices'] = [
  ['2023-05-01', 4900],
  ['2025-01-01', 5800],
  ['2026-01-01', 6300],
]

export const SUBSCRIPTION_PRODUCTS: ProductDef[] = [
  {
    productId: 'deutschlandticket',
    name: { en: 'Deutschlandticket', de: 'Deutschlandticket', fr: 'Deutschlandticket' },
    description: {
      en: 'Local and regional public transport all over Germany, monthly subscription. Personal: valid with an official photo ID. Cancel by the 10th to end with that month.',
      de: 'Nah- und Regionalverkehr in ganz Deutschland im monatlichen Abo. Persönlich: gültig mit amtlichem Lichtbildausweis. Kündigung bis zum 10. zum Monatsende.',
      fr: 'Transports locaux et régionaux dans toute l’Allemagne, abonnement mensuel. Personnel : valable avec une pièce d’identité officielle avec photo. Résiliation avant le 10 pour la fin du mois.',
    },
    prices: D_TICKET_PRICES,
    validIn: ['DE'],
    cancellationDeadlineDay: 10,
    minimumTermMonths: 1,
    requiresIdentification: true,
    requiresPin: false,
    available: true,
  },
  {
    productId: 'vbb-abo-ab',
    name: { en: 'VBB subscription Berlin AB', de: 'VBB-Abo Berlin AB', fr: 'Abonnement VBB Berlin AB' },
    description: {
      en: 'All public transport in Berlin zones A and B, monthly subscription. The app ticket is protected by a 4-digit PIN you choose. Cancel by the 10th to end with that month.',
      de: 'Alle Verkehrsmittel in Berlin AB im monatlichen Abo. Das Handyticket ist mit einer selbst gewählten 4-stelligen PIN geschützt. Kündigung bis zum 10. zum Monatsende.',
      fr: 'Tous les transports publics des zones A et B de Berlin, abonnement mensuel. Le billet sur mobile est protégé par un code PIN à 4 chiffres de votre choix. Résiliation avant le 10 pour la fin du mois.',
    },
    prices: [['2025-01-01', 8600]],
    validIn: ['VBB-AB'],
    cancellationDeadlineDay: 10,
    minimumTermMonths: 1,
    requiresIdentification: false,
    requiresPin: true,
    available: true,
  },
  {
    productId: 'deutschlandticket-job',
    name: { en: 'Deutschlandticket Job', de: 'Deutschlandticket Job', fr: 'Deutschlandticket Job' },
    description: {
      en: 'The Deutschlandticket as a job ticket. Sold through employers only, not to individual customers.',
      de: 'Das Deutschlandticket als Jobticket. Nur über Arbeitgeber erhältlich, nicht für Einzelkunden.',
      fr: 'Le Deutschlandticket en billet d’entreprise. Vendu uniquement par les employeurs, pas aux particuliers.',
    },
    prices: D_TICKET_PRICES.map(([from, cents]) => [from, Math.round(cents * 0.95)]),
    validIn: ['DE'],
    cancellationDeadlineDay: 10,
    minimumTermMonths: 1,
    requiresIdentification: true,
    requiresPin: false,
    available: false,
  },
]

const IDENTIFICATION_TYPES = new Set(['ID_CARD', 'PASSPORT', 'DRIVING_LICENSE'])
const IDENTIFICATION_NUMBER = /^[A-Z0-9]{6,12}$/
const PIN = /^\d{4}$/
const MAX_MONTHS_AHEAD = 12

const localized = (text: { en: string; de: string; fr: string }, language: string) => pick(text, language)

const definition = (productId: string) => SUBSCRIPTION_PRODUCTS.find((p) => p.productId === productId)

/** The monthly price on `day` (the first price before the table starts). */
function priceOn(def: ProductDef, day: string) {
  let cents = def.prices[0][1]
  for (const [from, amount] of def.prices) if (from <= day) cents = amount
  return { amount: cents, currency: CURRENCY }
}

function productView(def: ProductDef, day: string, language: string): SubscriptionProduct {
  return {
    productId: def.productId,
    name: localized(def.name, language),
    description: localized(def.description, language),
    price: priceOn(def, day),
    billingPeriod: 'MONTH',
    validIn: [...def.validIn],
    cancellationDeadlineDay: def.cancellationDeadlineDay,
    requiresIdentification: def.requiresIdentification,
    requiresPin: def.requiresPin,
    available: def.available,
  }
}

function statusOf(record: SubscriptionRecord, today: string): ProviderSubscription['status'] {
  if (record.withdrawn) return 'CANCELLED'
  if (record.endDate && today > record.endDate) return 'EXPIRED'
  if (record.cancelledAt) return 'CANCELLED'
  return today < record.startDate ? 'PENDING' : 'ACTIVE'
}

/** The subscription as it is on `today`. */
function present(record: SubscriptionRecord, today: string): ProviderSubscription {
  const def = definition(record.productId)!
  const status = statusOf(record, today)
  let nextBillingDate: string | undefined
  if (status === 'PENDING') nextBillingDate = record.startDate
  else if (!record.withdrawn && status !== 'EXPIRED') {
    const next = addMonths(today, 1)
    if (!record.endDate || next <= record.endDate) nextBillingDate = next
  }
  const billed = status === 'PENDING' || record.withdrawn ? record.startDate : firstOfMonth(today)
  return {
    reference: record.reference,
    productId: record.productId,
    status,
    startDate: record.startDate,
    ...(record.endDate ? { endDate: record.endDate } : {}),
    ...(nextBillingDate ? { nextBillingDate } : {}),
    price: priceOn(def, billed > record.startDate ? billed : record.startDate),
    ...(record.cancelledAt ? { cancelledAt: new Date(record.cancelledAt) } : {}),
  }
}

function checkIdentification(identification: SubscriptionHolder['identification']) {
  if (!identification) {
    throw new ApiError('INVALID_IDENTIFICATION', 'This product is personal: traveller.identification is required', {
      reason: 'MISSING',
      field: 'traveller.identification',
    })
  }
  if (!IDENTIFICATION_TYPES.has(identification.type)) {
    throw new ApiError('INVALID_IDENTIFICATION', 'Identification type must be ID_CARD, PASSPORT or DRIVING_LICENSE', {
      reason: 'INVALID_TYPE',
      field: 'traveller.identification.type',
    })
  }
  if (typeof identification.number !== 'string' || !IDENTIFICATION_NUMBER.test(identification.number)) {
    throw new ApiError('INVALID_IDENTIFICATION', 'Identification number must be 6 to 12 capital letters or digits', {
      reason: 'INVALID_NUMBER',
      field: 'traveller.identification.number',
    })
  }
}

function checkPin(pin: string | undefined) {
  if (pin === undefined || pin === '') {
    throw new ApiError('PIN_REQUIRED', 'This product needs a 4-digit PIN chosen by the customer', { reason: 'MISSING' })
  }
  if (!PIN.test(pin)) {
    throw new ApiError('PIN_REQUIRED', 'The PIN must be exactly 4 digits', { reason: 'INVALID_FORMAT' })
  }
}

/**
 * A subscription starts on the first day of a month: the current month's (already begun: it is charged from then) or a
 * later one, up to MAX_MONTHS_AHEAD ahead. A refusal names the allowed range (`earliestStartDate`, `latestStartDate`).
 */
function checkStart(startDate: string, today: string) {
  const earliest = firstOfMonth(today)
  const latest = addMonths(today, MAX_MONTHS_AHEAD)
  const range = { earliestStartDate: earliest, latestStartDate: latest }
  if (typeof startDate !== 'string' || !isDay(startDate) || dayOfMonth(startDate) !== 1) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      // Only the field (spec 7.1 test of a mid-month date); the message names the range.
      startDate: detail('START_DATE_FIRST_OF_MONTH', { earliest, latest }),
    })
  }
  if (startDate < earliest) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      reason: 'START_DATE_IN_PAST',
      startDate: detail('START_DATE_TOO_EARLY', { earliest, today }),
      ...range,
    })
  }
  if (startDate > latest) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      reason: 'START_DATE_TOO_LATE',
      startDate: detail('START_DATE_TOO_LATE', { latest }),
      ...range,
    })
  }
}

export function subscriptions(store: TransitStore) {
  async function load(ctx: CallContext, reference: string) {
    const record = await store.getSubscription(ctx.environment, reference)
    if (!record || !definition(record.productId)) {
      throw new ApiError('SUBSCRIPTION_NOT_FOUND', `No subscription ${reference} at this provider`)
    }
    return record
  }

  return {
    async products(ctx: CallContext): Promise<SubscriptionProduct[]> {
      const today = berlinDay(ctx.now)
      return SUBSCRIPTION_PRODUCTS.map((def) => productView(def, today, ctx.language))
    },

    async subscribe(
      productId: string,
      holder: SubscriptionHolder,
      startDate: string,
      pin: string | undefined,
      ctx: CallContext,
    ): Promise<ProviderSubscription> {
      const def = definition(productId)
      if (!def) throw new ApiError('PRODUCT_NOT_AVAILABLE', undefined, { productId, reason: 'UNKNOWN_PRODUCT' })
      if (!def.available) {
        throw new ApiError('PRODUCT_NOT_AVAILABLE', undefined, { productId, reason: 'EMPLOYER_ONLY' })
      }
      if (def.requiresIdentification) checkIdentification(holder.identification)
      if (def.requiresPin) checkPin(pin)
      const today = berlinDay(ctx.now)
      checkStart(startDate, today)
      const id = holder.identification
      const record: SubscriptionRecord = {
        v: 1,
        reference: await store.newSubscriptionReference(ctx.environment),
        productId,
        holder: {
          firstName: holder.firstName,
          lastName: holder.lastName,
          email: holder.email,
          dateOfBirth: holder.dateOfBirth,
          // The provider keeps what it prints on the ticket, not the whole document number.
          ...(id && def.requiresIdentification
            ? { identification: { type: id.type, numberLast4: id.number.slice(-4) } }
            : {}),
        },
        pinSet: def.requiresPin,
        startDate,
        createdAt: ctx.now.toISOString(),
      }
      await store.saveSubscription(ctx.environment, record)
      return present(record, today)
    },

    async getSubscription(reference: string, ctx: CallContext): Promise<ProviderSubscription> {
      return present(await load(ctx, reference), berlinDay(ctx.now))
    },

    async cancelSubscription(reference: string, ctx: CallContext): Promise<ProviderSubscription> {
      return store.withLock(ctx.environment, reference, async () => {
        const record = await load(ctx, reference)
        const def = definition(record.productId)!
        const today = berlinDay(ctx.now)
        const status = statusOf(record, today)
        if (status === 'EXPIRED') {
          throw new ApiError('SUBSCRIPTION_EXPIRED', undefined, { reference, endDate: record.endDate })
        }
        if (record.cancelledAt) {
          throw new ApiError('SUBSCRIPTION_ALREADY_CANCELLED', undefined, {
            reference,
            cancelledAt: record.cancelledAt,
            ...(record.endDate ? { endDate: record.endDate } : {}),
          })
        }
        if (today < record.startDate) {
          record.withdrawn = true
        } else {
          const cancellableFrom = addMonths(record.startDate, def.minimumTermMonths)
          if (today < cancellableFrom) {
            throw new ApiError('SUBSCRIPTION_NOT_CANCELLABLE', undefined, {
              reference,
              reason: 'MINIMUM_TERM',
              minimumTermMonths: def.minimumTermMonths,
              cancellableFrom,
            })
          }
          record.endDate =
            dayOfMonth(today) <= def.cancellationDeadlineDay ? lastOfMonth(today) : lastOfMonth(addMonths(today, 1))
        }
        record.cancelledAt = ctx.now.toISOString()
        await store.saveSubscription(ctx.environment, record)
        return present(record, today)
      })
    },
  }
}
