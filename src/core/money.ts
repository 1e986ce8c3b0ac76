/**
 * Money is stored as integer micro-units (amount × 1,000,000) so that commissions such as
 * 30 % of 99.99 (29.997) stay exact in integer columns and counters; responses are numbers.
 */
export const MICROS_PER_UNIT = 1_000_000;

export function toMicros(amount: number): number {
  return Math.round(amount * MICROS_PER_UNIT);
}

export function fromMicros(micros: number): number {
  return micros / MICROS_PER_UNIT;
}

const formatters = new Map<string, Intl.NumberFormat>();

/** `"$1,124.90"`: how program statistics show an amount of a currency (contract §4.18). */
export function formatAmount(micros: number, currency: string): string {
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
  return formatter.format(fromMicros(micros));
}
