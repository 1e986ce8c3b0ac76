import { type FieldProblem, problem } from './errors.ts';
import { divideRoundingHalfUp, MICROS_PER_UNIT, parseAmount } from './money.ts';

/**
 * Payout rules (pure): which partners a payout batch pays, how clawbacks net out, and how an
 * exact amount is rounded for a payment file. Settings are program settings (`payout_minimum`
 * per currency, `payout_terms_days`).
 */

export const defaultPayoutSettings = {
  /** Minimum net amount per currency (upper-case code → amount) a partner needs to be paid. */
  payout_minimum: {} as Record<string, number>,
  /** Days an approved commission waits after approval before a payout may include it. */
  payout_terms_days: 0,
};

export const payoutMethods = ['paypal', 'wise', 'bank_transfer', 'manual'] as const;
export type PayoutMethod = (typeof payoutMethods)[number];

/** The minimum of one currency in micro-units (0 when the program sets none). */
export function payoutMinimumOf(minimums: Record<string, number | string>, currency: string): bigint {
  const value = minimums[currency.toUpperCase()];
  if (value === undefined) return 0n;
  const parsed = parseAmount(value);
  return parsed.ok && parsed.micros > 0n ? parsed.micros : 0n;
}

/**
 * Whether a payout pays a partner whose approved commissions and clawbacks of its currency net to
 * `netMicros`: above zero and at least the minimum. The others keep theirs for a later payout (a
 * clawback waits until commissions outweigh it). Payouts apply this rule in SQL, over every
 * partner at once (the `having` of the claim and `unpaidPartnersOf`); this is its statement.
 */
export function paysNet(netMicros: bigint, minimumMicros: bigint): boolean {
  return netMicros > 0n && netMicros >= minimumMicros;
}

/** Digits after the decimal point of a currency's minor unit (2 for USD, 0 for JPY, 3 for KWD). */
export function minorUnitDigits(currency: string): number {
  let digits = minorDigits.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    minorDigits.set(currency, digits);
  }
  return digits;
}

// A formatter costs tens of microseconds to build: an export asks once per row.
const minorDigits = new Map<string, number>();

/**
 * An exact amount as a payment file writes it: rounded half up to the currency's minor unit,
 * the only place a payout amount is rounded (`12.3456` USD → `"12.35"`, `1234.5` JPY → `"1235"`).
 */
export function exportAmount(micros: bigint | number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const minor =
    typeof micros === 'number' && Math.abs(micros) <= SAFE_MICROS
      ? roundHalfUpToStep(micros, 10 ** (6 - digits))
      : divideRoundingHalfUp(BigInt(micros), MICROS_PER_UNIT / 10n ** BigInt(digits));
  const negative = minor < 0;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${text.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

// Micro-units a double holds exactly with room for the doubling below (an export rounds tens of
// thousands of amounts; bigint division cost several times as much as this).
const SAFE_MICROS = 2 ** 50;

/** `divideRoundingHalfUp(micros, step)` on exact integer doubles: floor((2·micros + step) / 2·step). */
function roundHalfUpToStep(micros: number, step: number): number {
  const numerator = 2 * micros + step;
  const divisor = 2 * step;
  let quotient = Math.floor(numerator / divisor);
  // The division is rounded; the products are exact, so one step corrects it.
  if (quotient * divisor > numerator) quotient -= 1;
  else if ((quotient + 1) * divisor <= numerator) quotient += 1;
  return quotient;
}

/** The first day a commission approved at `approvedAt` may be paid, given the terms. */
export function payableFrom(approvedAt: string, termsDays: number): string {
  const date = new Date(approvedAt);
  date.setUTCDate(date.getUTCDate() + termsDays);
  return `${date.toISOString().slice(0, 19)}${approvedAt.slice(19)}`;
}

/** The latest approval time a payout made at `now` can take under the terms. */
export function approvedBy(now: string, termsDays: number): string {
  return payableFrom(now, -termsDays);
}

/** A partner's payout fields (stored as JSON next to the method). */
export interface PayoutDetails {
  email?: string | undefined;
  iban?: string | undefined;
  account_holder?: string | undefined;
  account_number?: string | undefined;
  routing_number?: string | undefined;
  swift_bic?: string | undefined;
  bank_name?: string | undefined;
  note?: string | undefined;
}

/**
 * What each method needs: PayPal an e-mail; Wise the recipient's e-mail, or an IBAN with the
 * account holder; a bank transfer the account holder and an IBAN or account number; manual
 * nothing (free text in `note`). Answers the missing fields, named under `prefix`.
 */
export function payoutDetailsProblems(
  method: PayoutMethod,
  details: PayoutDetails,
  prefix: string,
): FieldProblem[] {
  const missing = (field: string) =>
    problem(`${prefix}payout_details.${field}`, 'requiredWhen', 'payout_method', method);
  const problems: FieldProblem[] = [];
  switch (method) {
    case 'paypal':
      if (!details.email) problems.push(missing('email'));
      break;
    case 'wise':
      if (!details.email && !details.iban) problems.push(missing('email'));
      if (details.iban && !details.account_holder) problems.push(missing('account_holder'));
      break;
    case 'bank_transfer':
      if (!details.account_holder) problems.push(missing('account_holder'));
      if (!details.iban && !details.account_number) problems.push(missing('iban'));
      break;
    case 'manual':
      break;
  }
  return problems;
}
