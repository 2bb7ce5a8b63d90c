/** An amount in minor units (cents for EUR, yen for JPY, fils for KWD) of an ISO 4217 currency. */
export interface Money {
  amount: number
  currency: string
}

/**
 * ISO 4217 minor-unit exponents that differ from 2. The exponent is never guessed from what a provider sent:
 * 10000 KRW read with the default 2 would show a hundredth of the price.
 */
const EXPONENTS: Record<string, number> = {
  // 0: no minor unit in use.
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // 3: thousandths (fils, baisa, millime, dirham).
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // 4: units of account.
  CLF: 4,
  UYW: 4,
}

/** Number of decimal places of the currency's minor unit (2 unless the table says otherwise). */
export function currencyExponent(currency: string): number {
  return EXPONENTS[currency.toUpperCase()] ?? 2
}

/** Minor units to major units: 1999 EUR → 19.99, 1999 JPY → 1999, 1999 KWD → 1.999. */
export function toMajor(amount: number, currency: string): number {
  // Division by a power of ten is correctly rounded, so the result is the double nearest the exact decimal.
  return amount / 10 ** currencyExponent(currency)
}

/**
 * Major units to minor units, rounded to the nearest minor unit (0.07 * 100 is 7.000000000000001 in binary);
 * `toMinor(toMajor(amount))` is `amount` for every |amount| below 2^51 minor units.
 */
export function toMinor(major: number, currency: string): number {
  return Math.round(major * 10 ** currencyExponent(currency))
}

/** The price as a reader of `language` expects it (`19,99 €` in de, `€19.99` in en), with every minor digit. */
export function formatMoney(price: Money, language: string): string {
  const currency = price.currency.toUpperCase()
  const digits = currencyExponent(currency)
  const major = toMajor(price.amount, currency)
  try {
    return new Intl.NumberFormat(language, {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(major)
  } catch {
    // A malformed currency code or language tag: still show the amount rather than fail a mail.
    return `${major.toFixed(digits)} ${currency}`
  }
}
