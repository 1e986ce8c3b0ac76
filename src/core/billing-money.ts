import { MICROS_PER_UNIT, type Micros } from './money.ts';

/**
 * Payment processors send amounts as integers in the currency's minor unit (Stripe: numbers;
 * Paddle: numeric strings). How many minor units make one major unit is the currency's exponent
 * (ISO 4217): none for JPY and KRW, three for BHD, JOD, KWD, OMR and TND, two for the rest of
 * the currencies Vouch meets. The conversion to micro-units is a multiplication by a power of ten,
 * never a float division, so every minor amount is kept exactly.
 */
const exponentOf: Readonly<Record<string, number>> = {
  JPY: 0,
  KRW: 0,
  BHD: 3,
  JOD: 3,
  KWD: 3,
  OMR: 3,
  TND: 3,
};

export const DEFAULT_CURRENCY_EXPONENT = 2;

export function currencyExponent(currency: string): number {
  return exponentOf[currency.toUpperCase()] ?? DEFAULT_CURRENCY_EXPONENT;
}

const INTEGER_TEXT = /^-?\d{1,30}$/;

/** A minor-unit amount as a bigint, or undefined when it is not an integer (`"12.5"`, `1.5`, `null`). */
export function minorUnitsOf(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value);
  return undefined;
}

/** Minor units of `currency` as exact micro-units: 1999 USD → 19.99; 1500 JPY → 1500; 1234 KWD → 1.234. */
export function minorToMicros(minor: bigint, currency: string): Micros {
  return (minor * MICROS_PER_UNIT) / 10n ** BigInt(currencyExponent(currency));
}
