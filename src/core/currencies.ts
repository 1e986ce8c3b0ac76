/** ISO 4217 codes known to the runtime's ICU data (current codes only). */
const currencyCodes = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(value: string): boolean {
  return currencyCodes.has(value.toUpperCase()) && /^[A-Za-z]{3}$/.test(value);
}
