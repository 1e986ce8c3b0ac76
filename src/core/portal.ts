import type { CommissionSettings } from './commissions.ts';
import type { RewardSetting, RewardSettings } from './rewards.ts';
import { addDays } from './time.ts';

/**
 * Rules of the partner portal that need no I/O: how long failed sign-ins make a person wait, how
 * a customer's name is shown to the partner who referred it, the commission terms in words, and
 * the day-by-day series of the dashboard's chart.
 */

/** How long a sign-in session lasts from sign-in; after that, sign in again. */
export const SESSION_DAYS = 14;
/** How long a one-time sign-in or reset link works. */
export const TOKEN_MINUTES = 15;
/** Failed sign-ins allowed before each next one waits (per account; an address gets more). */
export const FREE_FAILURES = { account: 5, address: 20 } as const;
/** Failures older than this are forgotten: a person who mistyped last week starts afresh. */
export const FAILURE_MEMORY_MS = 24 * 60 * 60 * 1000;
/** The longest wait between sign-in attempts, in seconds. */
export const MAX_DELAY_SECONDS = 15 * 60;

/**
 * Seconds a subject must wait after its last failure before trying again: nothing while under the
 * free failures, then 1 s, doubling with each further failure, up to 15 minutes.
 */
export function signInDelaySeconds(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(2 ** (failures - free), MAX_DELAY_SECONDS);
}

/** Seconds left before the next attempt is heard (0: now), from the last failure's time. */
export function secondsToWait(failures: number, free: number, lastFailedMs: number, nowMs: number): number {
  const delay = signInDelaySeconds(failures, free);
  if (delay === 0) return 0;
  return Math.max(0, Math.ceil((lastFailedMs + delay * 1000 - nowMs) / 1000));
}

/** "in 3 seconds", "in 2 minutes": how a wait is said on the page. */
export function waitInWords(seconds: number): string {
  if (seconds < 60) return `in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  return `in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

const initial = (word: string | null | undefined) => {
  const letter = (word ?? '').trim().charAt(0).toUpperCase();
  return letter ? `${letter}.` : '';
};

/**
 * A customer as its partner sees it: initials only ("J. D."), from the first and last word of the
 * name and surname together (customers keep them in two fields), else from the e-mail's mailbox,
 * so the portal never shows a buyer's full name or address.
 */
export function maskedName(
  name: string | null | undefined,
  email: string | null | undefined,
  surname?: string | null,
): string {
  const words = `${name ?? ''} ${surname ?? ''}`.trim().split(/\s+/).filter(Boolean);
  if (words.length > 0)
    return [initial(words[0]), words.length > 1 ? initial(words.at(-1)) : ''].filter(Boolean).join(' ');
  return initial(email) || '?';
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function ruleInWords(rule: { type: string; value: number }, currency: string): string {
  return rule.type === 'percent' ? `${rule.value} %` : `${rule.value} ${currency}`;
}

/**
 * The commission terms as a sentence: "20 % of every payment for 12 months, paid after a 30-day
 * hold". Product-specific rates and the second tier are mentioned, not listed.
 */
export function commissionTermsInWords(settings: CommissionSettings, currency: string): string {
  const { commission } = settings;
  const base = ruleInWords(commission, currency);
  const what = commission.type === 'percent' ? `${base} of every payment` : `${base} per payment`;
  const n = commission.duration_value ?? 0;
  const duration: Record<CommissionSettings['commission']['duration'], string> = {
    lifetime: ' for the lifetime of the customer',
    times: ` for the first ${plural(n, 'payment')}`,
    days: ` for ${plural(n, 'day')}`,
    months: ` for ${plural(n, 'month')}`,
    years: ` for ${plural(n, 'year')}`,
  };
  const hold =
    settings.commission_hold_days > 0 ? `, paid after a ${settings.commission_hold_days}-day hold` : '';
  const extras = [
    settings.product_commissions.length > 0 ? 'some products earn their own rate' : '',
    settings.tier2_commission
      ? `partners you refer earn you ${ruleInWords(settings.tier2_commission, currency)} of their sales too`
      : '',
  ].filter(Boolean);
  return `${what}${duration[commission.duration]}${hold}.${extras.length > 0 ? ` Also: ${extras.join('; ')}.` : ''}`;
}

/** One value per day for the `days` days ending `today`, zero where nothing was counted. */
export function dailySeries(
  rows: readonly { day: string; value: number }[],
  today: string,
  days: number,
): { day: string; value: number }[] {
  const byDay = new Map(rows.map((row) => [row.day, row.value]));
  return daysUpTo(today, days).map((day) => ({ day, value: byDay.get(day) ?? 0 }));
}

/** The last series' days: every dashboard of a day asks for the same ones (date maths cost more than the rest). */
let lastDays: { today: string; days: number; list: readonly string[] } | undefined;

function daysUpTo(today: string, days: number): readonly string[] {
  if (lastDays?.today === today && lastDays.days === days) return lastDays.list;
  const list: string[] = [];
  for (let i = days - 1; i >= 0; i--) list.push(addDays(today, -i));
  lastDays = { today, days, list };
  return list;
}

/** An amount as people read it ("$1,234.50"); an unknown currency code shows as "1234.5 XYZ". */
export function moneyInWords(amount: number, currency: string): string {
  const format = currencyFormat(currency);
  return format ? format.format(amount) : `${amount} ${currency}`;
}

// Building a NumberFormat costs more than a whole dashboard query: one per currency, kept.
const formats = new Map<string, Intl.NumberFormat | null>();
function currencyFormat(currency: string): Intl.NumberFormat | null {
  let format = formats.get(currency);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat('en', { style: 'currency', currency });
    } catch {
      format = null;
    }
    if (formats.size < 1000) formats.set(currency, format);
  }
  return format;
}

function rewardInWords(setting: RewardSetting): string {
  const amount =
    setting.type === 'percent' ? `${setting.value} %` : `${setting.value} ${setting.amount_units}`;
  const unit = setting.type === 'percent' && !setting.is_currency ? ` in ${setting.amount_units}` : '';
  return setting.type === 'percent' ? `${amount} of a purchase${unit}` : amount;
}

/**
 * A refer-a-friend offer as people say it: "Give 10 USD, get 10 USD" (the friend's reward, then
 * the referrer's), with when it is earned; undefined when neither side earns anything.
 */
export function offerInWords(settings: RewardSettings): string | undefined {
  const give = settings.referred_reward;
  const get = settings.referrer_reward;
  const rule = get ?? give;
  if (!rule) return undefined;
  const parts = [give ? `Give ${rewardInWords(give)}` : '', get ? `get ${rewardInWords(get)}` : ''].filter(
    Boolean,
  );
  const sentence = parts.join(', ');
  const trigger = rule.trigger === 'every_purchase' ? 'on every purchase' : 'when your friend first buys';
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}, ${trigger}.`;
}
