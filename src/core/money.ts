import { type FieldProblem, problem, validationError } from './errors.ts';

/**
 * Money is exact integer micro-units (amount × 1,000,000) held in `bigint`: a sale of
 * 999999999999.999999 is 10^18 − 1 micro-units, beyond what a double holds exactly, and sums
 * go further still. The one rule: an amount is read through its decimal text (a JSON number's
 * shortest round-trip text, or the string as sent), never by multiplying floats, and is kept
 * exactly or refused. Responses show the nearest JSON number.
 */
export type Micros = bigint;

export const MICROS_PER_UNIT = 1_000_000n;
/** Most decimal places an amount may have: one micro-unit. */
export const AMOUNT_DECIMALS = 6;
/** Amounts must stay below this in magnitude (contract §4.18). */
export const AMOUNT_LIMIT = 1_000_000_000_000;
const LIMIT_DIGITS = 12;

/** A decimal read exactly: `digits × 10^-scale`; scale < 0 means trailing zeros. */
interface ExactDecimal {
  negative: boolean;
  digits: string;
  scale: number;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** The decimal text of a JSON number or numeric string, exactly; undefined when not numeric. */
function readDecimal(value: unknown): ExactDecimal | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else if (typeof value === 'bigint') {
    text = value.toString();
  } else {
    return undefined;
  }
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  if (whole === '' && fraction === '') return undefined;
  const shift = Number(exponent);
  if (!Number.isSafeInteger(shift)) return undefined;
  let digits = (whole + fraction).replace(/^0+/, '');
  let scale = fraction.length - shift;
  if (digits === '') return { negative: false, digits: '0', scale: 0 };
  // Trailing zeros say nothing about precision: 10.50 has two decimals worth keeping, not three.
  const trimmed = digits.replace(/0+$/, '');
  scale -= digits.length - trimmed.length;
  digits = trimmed;
  return { negative: sign === '-', digits, scale };
}

export type ParsedAmount =
  | { ok: true; micros: Micros }
  | { ok: false; reason: 'numeric' | 'decimals' | 'range' };

/**
 * An amount (a JSON number or a numeric string) as exact micro-units, or why it cannot be kept:
 * not a number (`numeric`), finer than a micro-unit (`decimals`), or 10^12 or more in magnitude
 * (`range`). Sign rules (a sale is never negative) are the caller's.
 */
export function parseAmount(value: unknown): ParsedAmount {
  const decimal = readDecimal(value);
  if (!decimal) return { ok: false, reason: 'numeric' };
  const { negative, digits, scale } = decimal;
  if (digits === '0') return { ok: true, micros: 0n };
  if (digits.length - scale > LIMIT_DIGITS) return { ok: false, reason: 'range' };
  if (scale > AMOUNT_DECIMALS) return { ok: false, reason: 'decimals' };
  const micros = BigInt(digits) * 10n ** BigInt(AMOUNT_DECIMALS - scale);
  return { ok: true, micros: negative ? -micros : micros };
}

/**
 * The amount of a request field as micro-units, or the 422 on that field in Laravel's wording.
 * Amounts are never negative unless the field says so (`allowNegative`).
 */
export function amountOrThrow(
  value: unknown,
  field: string,
  options: { allowNegative?: boolean } = {},
): Micros {
  const checked = amountProblem(value, field, options);
  if (typeof checked === 'bigint') return checked;
  throw validationError([checked]);
}

/** Which sign an amount field accepts: a sale is never negative, a credit is more than zero. */
export type AmountSign = 'any' | 'non-negative' | 'positive';

export type AmountProblem = 'numeric' | 'decimals' | 'range' | 'negative' | 'not-positive';

/** The micro-units of an amount, or why the field refuses it. */
export function checkAmount(value: unknown, sign: AmountSign = 'non-negative'): Micros | AmountProblem {
  const parsed = parseAmount(value);
  if (!parsed.ok) return parsed.reason;
  if (sign === 'non-negative' && parsed.micros < 0n) return 'negative';
  if (sign === 'positive' && parsed.micros <= 0n) return 'not-positive';
  return parsed.micros;
}

/** The field problem of each refusal (worded by core/messages.ts). */
export function amountFieldProblem(refusal: AmountProblem, field: string): FieldProblem {
  switch (refusal) {
    case 'numeric':
      return problem(field, 'numeric');
    case 'decimals':
      return problem(field, 'decimals', AMOUNT_DECIMALS);
    case 'range':
      return problem(field, 'lessThan', AMOUNT_LIMIT);
    case 'negative':
      return problem(field, 'min', 0);
    case 'not-positive':
      return problem(field, 'gt', 0);
  }
}

/** The micro-units of an amount, or the field problem that refuses it. */
export function amountProblem(
  value: unknown,
  field: string,
  options: { allowNegative?: boolean } = {},
): Micros | FieldProblem {
  const checked = checkAmount(value, options.allowNegative ? 'any' : 'non-negative');
  return typeof checked === 'bigint' ? checked : amountFieldProblem(checked, field);
}

/** Exact decimal text of micro-units: `1124900000n` → `"1124.9"`. */
export function microsToText(micros: bigint | number): string {
  if (typeof micros === 'number' && Number.isSafeInteger(micros)) return safeMicrosToText(micros);
  const value = BigInt(micros);
  const negative = value < 0n;
  const magnitude = (negative ? -value : value).toString().padStart(7, '0');
  const whole = magnitude.slice(0, -6);
  const fraction = magnitude.slice(-6).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * `microsToText` of a safe integer in number arithmetic, which is exact below 2^53 (`%` of two
 * integers, and a difference divisible by 10^6 divided by it): an export writes millions of
 * amounts, and a bigint per amount was a tenth of its cost per row.
 */
function safeMicrosToText(micros: number): string {
  const magnitude = micros < 0 ? -micros : micros;
  let fraction = magnitude % 1_000_000;
  const whole = (magnitude - fraction) / 1_000_000;
  const sign = micros < 0 ? '-' : '';
  if (fraction === 0) return `${sign}${whole}`;
  let digits = 6;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${sign}${whole}.${String(fraction).padStart(digits, '0')}`;
}

/** The nearest JSON number to an amount of micro-units (what responses show). */
export function microsToNumber(micros: bigint | number): number {
  if (typeof micros === 'number') {
    // Both operands exact and the division correctly rounded: already the nearest double.
    if (Number.isSafeInteger(micros)) return micros / 1e6;
    return Number(microsToText(BigInt(micros)));
  }
  if (micros <= 9_007_199_254_740_991n && micros >= -9_007_199_254_740_991n) return Number(micros) / 1e6;
  return Number(microsToText(micros));
}

/**
 * Micro-units as a database hands them back: a number when it fits a double exactly, a bigint
 * when it does not (db/postgres.ts, db/sqlite.ts), or the text of a numeric sum.
 */
export function microsFrom(dbValue: number | bigint | string | null | undefined): Micros {
  if (dbValue === null || dbValue === undefined) return 0n;
  if (typeof dbValue === 'bigint') return dbValue;
  if (typeof dbValue === 'number') {
    if (!Number.isInteger(dbValue)) throw new RangeError(`Micro-units must be an integer, got ${dbValue}.`);
    return BigInt(dbValue);
  }
  return BigInt(dbValue);
}

/** A percentage read exactly from its decimal text: `numerator / denominator` percent. */
export interface ExactPercent {
  numerator: bigint;
  denominator: bigint;
}

export function exactPercent(value: number | string): ExactPercent {
  const decimal = readDecimal(value);
  if (!decimal) throw new RangeError(`Not a percentage: ${String(value)}`);
  const units = BigInt(decimal.digits) * (decimal.negative ? -1n : 1n);
  return decimal.scale >= 0
    ? { numerator: units, denominator: 10n ** BigInt(decimal.scale) }
    : { numerator: units * 10n ** BigInt(-decimal.scale), denominator: 1n };
}

/** `numerator / denominator` rounded half up (towards +∞ on a tie), for any signs. */
export function divideRoundingHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator < 0n) return divideRoundingHalfUp(-numerator, -denominator);
  const doubled = 2n * numerator + denominator;
  const divisor = 2n * denominator;
  const quotient = doubled / divisor;
  // bigint division truncates towards zero; floor it for negative results.
  return doubled % divisor !== 0n && doubled < 0n ? quotient - 1n : quotient;
}

/** `percent` % of an amount in micro-units, rounded half up to a micro-unit: 30 % of 99.99 → 29.997. */
export function percentOf(micros: Micros, percent: number | string): Micros {
  const { numerator, denominator } = exactPercent(percent);
  return divideRoundingHalfUp(micros * numerator, 100n * denominator);
}

const formatters = new Map<string, Intl.NumberFormat>();

/**
 * `"$1,124.90"`: how program statistics show an amount of a currency (contract §4.18). The
 * formatter gets the exact decimal text, so sums beyond a double's precision print exactly.
 */
export function formatAmount(micros: bigint | number, currency: string): string {
  const code = currency.toUpperCase();
  let formatter = formatters.get(code);
  if (!formatter) {
    try {
      formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency: code });
    } catch {
      formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    formatters.set(code, formatter);
  }
  // Intl reads a numeric string as an exact decimal (ECMA-402 NumberFormat v3).
  return formatter.format(microsToText(micros) as unknown as number);
}
