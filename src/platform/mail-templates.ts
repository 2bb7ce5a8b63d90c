import { formatMoney, type Money } from './money.ts'

/** The part of a car booking the mails show; anything richer (the stored booking record) fits. */
export interface BookingMailData {
  bookingId: string
  provider: { name: string }
  vehicle: { make: string; model: string }
  pickupLocation: MailLocation
  dropoffLocation: MailLocation
  rentalPeriod: { start: string | Date; end: string | Date }
  chargedRate: Money
  driver: { firstName: string; lastName: string; email: string }
  cancellation?: { fee: Money; refund: Money }
}

export interface MailLocation {
  name: string
  address: { street?: string; city: string; postalCode?: string; country: string }
}

export type BookingMailKind = 'confirmation' | 'cancellation'

export interface RenderedMail {
  subject: string
  text: string
  html: string
}

interface MailCatalog {
  subject: Record<BookingMailKind, string>
  greeting: string
  intro: Record<BookingMailKind, string>
  bookingId: string
  provider: string
  vehicle: string
  pickup: string
  dropoff: string
  period: string
  price: string
  fee: string
  refund: string
  closing: string
  /** Between a label and its value; French puts a (no-break) space before the colon. */
  colon: string
}

/** `{name}` placeholders are filled from the booking; a missing language falls back to en. */
const CATALOGS: Record<string, MailCatalog> = {
  en: {
    subject: {
      confirmation: 'Your booking {bookingId} is confirmed',
      cancellation: 'Your booking {bookingId} has been cancelled',
    },
    greeting: 'Hello {firstName} {lastName},',
    intro: {
      confirmation: '{provider} has confirmed your car rental.',
      cancellation: 'Your car rental with {provider} has been cancelled.',
    },
    bookingId: 'Booking number',
    provider: 'Provider',
    vehicle: 'Vehicle',
    pickup: 'Pick-up',
    dropoff: 'Return',
    period: 'Rental period',
    price: 'Price',
    fee: 'Cancellation fee',
    refund: 'Refund',
    closing: 'Please quote the booking number if you contact us.',
    colon: ': ',
  },
  de: {
    subject: {
      confirmation: 'Ihre Buchung {bookingId} ist bestätigt',
      cancellation: 'Ihre Buchung {bookingId} wurde storniert',
    },
    greeting: 'Hallo {firstName} {lastName},',
    intro: {
      confirmation: '{provider} hat Ihre Mietwagenbuchung bestätigt.',
      cancellation: 'Ihre Mietwagenbuchung bei {provider} wurde storniert.',
    },
    bookingId: 'Buchungsnummer',
    provider: 'Anbieter',
    vehicle: 'Fahrzeug',
    pickup: 'Abholung',
    dropoff: 'Rückgabe',
    period: 'Mietzeitraum',
    price: 'Preis',
    fee: 'Stornogebühr',
    refund: 'Erstattung',
    closing: 'Bitte geben Sie bei Rückfragen die Buchungsnummer an.',
    colon: ': ',
  },
  fr: {
    subject: {
      confirmation: 'Votre réservation {bookingId} est confirmée',
      cancellation: 'Votre réservation {bookingId} a été annulée',
    },
    greeting: 'Bonjour {firstName} {lastName},',
    intro: {
      confirmation: '{provider} a confirmé votre location de voiture.',
      cancellation: 'Votre location de voiture chez {provider} a été annulée.',
    },
    bookingId: 'Numéro de réservation',
    provider: 'Loueur',
    vehicle: 'Véhicule',
    pickup: 'Prise en charge',
    dropoff: 'Restitution',
    period: 'Période de location',
    price: 'Prix',
    fee: "Frais d'annulation",
    refund: 'Remboursement',
    closing: 'Merci de rappeler le numéro de réservation si vous nous contactez.',
    colon: '\u00a0: ',
  },
}

export const MAIL_LANGUAGES = Object.keys(CATALOGS)

/**
 * The catalog for `language` (`de-AT` uses de) and the locale to format dates and prices with. A language without a
 * catalog gets en throughout, so a mail never mixes English text with, say, Japanese dates.
 */
function resolveLanguage(language: string): { catalog: MailCatalog; locale: string } {
  let locale = 'en'
  try {
    locale = Intl.getCanonicalLocales(language)[0] ?? 'en'
  } catch {
    // Not a BCP 47 tag.
  }
  const primary = locale.split('-')[0].toLowerCase()
  const catalog = CATALOGS[primary]
  return catalog ? { catalog, locale } : { catalog: CATALOGS.en, locale: 'en' }
}

const fill = (template: string, values: Record<string, string>): string =>
  template.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match)

const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  )

function countryName(code: string, locale: string): string {
  if (!/^[A-Za-z]{2}$/.test(code)) return code
  try {
    return new Intl.DisplayNames(locale, { type: 'region' }).of(code.toUpperCase()) ?? code
  } catch {
    return code
  }
}

function formatAddress(location: MailLocation, locale: string): string {
  const { street, postalCode, city, country } = location.address
  const town = [postalCode, city].filter(Boolean).join(' ')
  return [street, town, countryName(country, locale)].filter(Boolean).join(', ')
}

function formatTime(value: string | Date, locale: string, timeZone: string): { local: string; utc: string } {
  const date = value instanceof Date ? value : new Date(value)
  if (Number.isNaN(date.getTime())) return { local: String(value), utc: String(value) }
  const local = new Intl.DateTimeFormat(locale, {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(date)
  return { local, utc: date.toISOString().replace(/\.000Z$/, 'Z') }
}

/**
 * Subject, plain text and HTML of a booking mail in `language` (en, de, fr; anything else gets en). Times are shown
 * in `timeZone` (until locations carry their own) and in UTC.
 */
export function bookingMail(
  kind: BookingMailKind,
  language: string,
  booking: BookingMailData,
  options: { timeZone?: string } = {},
): RenderedMail {
  const { catalog, locale } = resolveLanguage(language)
  const timeZone = options.timeZone ?? 'Europe/Berlin'
  const values = {
    bookingId: booking.bookingId,
    provider: booking.provider.name,
    firstName: booking.driver.firstName,
    lastName: booking.driver.lastName,
  }
  const start = formatTime(booking.rentalPeriod.start, locale, timeZone)
  const end = formatTime(booking.rentalPeriod.end, locale, timeZone)
  const location = (l: MailLocation) => `${l.name}, ${formatAddress(l, locale)}`

  const rows: [label: string, value: string][] = [
    [catalog.bookingId, booking.bookingId],
    [catalog.provider, booking.provider.name],
    [catalog.vehicle, `${booking.vehicle.make} ${booking.vehicle.model}`],
    [catalog.pickup, location(booking.pickupLocation)],
    [catalog.dropoff, location(booking.dropoffLocation)],
    [catalog.period, `${start.local} – ${end.local}`],
    ['UTC', `${start.utc} – ${end.utc}`],
    [catalog.price, formatMoney(booking.chargedRate, locale)],
  ]
  if (kind === 'cancellation' && booking.cancellation) {
    rows.push([catalog.fee, formatMoney(booking.cancellation.fee, locale)])
    rows.push([catalog.refund, formatMoney(booking.cancellation.refund, locale)])
  }

  const subject = fill(catalog.subject[kind], values)
  const greeting = fill(catalog.greeting, values)
  const intro = fill(catalog.intro[kind], values)
  const text = [
    greeting,
    '',
    intro,
    '',
    ...rows.map(([label, value]) => `${label}${catalog.colon}${value}`),
    '',
    catalog.closing,
    '',
  ]
  const html = [
    '<!doctype html>',
    `<html lang="${escapeHtml(locale)}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: sans-serif">',
    `<p>${escapeHtml(greeting)}</p>`,
    `<p>${escapeHtml(intro)}</p>`,
    '<table cellpadding="4">',
    ...rows.map(([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p>${escapeHtml(catalog.closing)}</p>`,
    '</body></html>',
  ]
  return { subject, text: text.join('\n'), html: html.join('\n') }
}
