/**
 * The self-referral guard (issue 12): a customer signed up with its own partner's e-mail, or a
 * referred customer with its referrer's, is stored but earns nothing; its rewards are stored
 * `rejected` with the reason shown. Addresses are compared case-insensitively and, for providers
 * that deliver them to one mailbox, without dots and `+tags` (`J.Doe+shop@gmail.com` is
 * `jdoe@gmail.com`).
 */

/** Why a reward is `rejected`; the only reason today. */
export const SELF_REFERRAL = 'self_referral';
export const REJECTED = 'rejected';

/** Providers whose local part ignores dots and `+tags`, and the canonical domain of each alias. */
const ignoresDots: Record<string, string> = { 'gmail.com': 'gmail.com', 'googlemail.com': 'gmail.com' };

/** Providers that deliver `name+tag@` to `name@` (dots matter there). */
const subAddressing = new Set([
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'fastmail.com',
  'fastmail.fm',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'yandex.com',
  'yandex.ru',
  'zoho.com',
]);

/** The mailbox an address reaches, as far as the guard can tell; undefined for no address. */
export function canonicalEmail(email: string | null | undefined): string | undefined {
  if (!email) return undefined;
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0 || at === trimmed.length - 1) return trimmed || undefined;
  let local = trimmed.slice(0, at);
  let domain = trimmed.slice(at + 1);
  const gmail = ignoresDots[domain];
  if (gmail) {
    domain = gmail;
    local = beforePlus(local).replaceAll('.', '');
  } else if (subAddressing.has(domain)) {
    local = beforePlus(local);
  }
  return `${local}@${domain}`;
}

/** Whether a new customer's e-mail is the referrer's own (partner or referring customer). */
export function isSelfReferral(
  customerEmail: string | null | undefined,
  referrerEmail: string | null | undefined,
) {
  const customer = canonicalEmail(customerEmail);
  return customer !== undefined && customer === canonicalEmail(referrerEmail);
}

/** A reward's status when its sale came from a self-referral; otherwise the status decided. */
export function guardedStatus(status: string, selfReferral: boolean): string {
  return selfReferral ? REJECTED : status;
}

/** What a reward entry shows as its reason: only rejected rewards have one. */
export function rejectionReason(status: string): string | undefined {
  return status === REJECTED ? SELF_REFERRAL : undefined;
}

/** The part of an address's local part before a `+` tag (all of it without one). */
function beforePlus(local: string): string {
  const plus = local.indexOf('+');
  return plus < 0 ? local : local.slice(0, plus);
}
