import { isDisposableDomain } from './fraud-disposable.ts';
import type { ProgramType } from './program-types.ts';
import { canonicalEmail } from './self-referral.ts';

/**
 * Fraud rules (issue 27): each rule looks at the facts a signup or a sale already has and answers
 * `off` (it did not fire, or the program turned it off), `flag` (credit, but hold the money for a
 * person) or `block` (refuse to credit), with the evidence it used. A rule that lacks the value it
 * needs does not fire: the API call comes from the owner's server, so the buyer's address, visitor
 * or landing URL exist only when the owner forwarded them.
 */

export const fraudRules = [
  'self_referral',
  'same_address',
  'disposable_email',
  'paid_ads',
  'fast_conversion',
] as const;
export type FraudRule = (typeof fraudRules)[number];

export const fraudActions = ['off', 'flag', 'block'] as const;
export type FraudAction = (typeof fraudActions)[number];

export interface FraudSettings {
  fraud_rules: Record<FraudRule, FraudAction>;
  same_address_limit: number;
  fast_conversion_seconds: number;
  paid_ads_allowed: boolean;
}

/**
 * The defaults, chosen so that turning the rules on changes nothing for a program that sends no
 * `context`: the self-referral guard blocks as it always did; the rules that only hold money for a
 * look flag; `fast_conversion` is off because a quick buyer is usually a good one.
 */
export const defaultFraudSettings: FraudSettings = {
  fraud_rules: {
    self_referral: 'block',
    same_address: 'flag',
    disposable_email: 'flag',
    paid_ads: 'flag',
    fast_conversion: 'off',
  },
  same_address_limit: 3,
  fast_conversion_seconds: 10,
  paid_ads_allowed: true,
};

/**
 * The fraud settings of a program's settings as read (core/program-settings.ts merged the
 * defaults, and `PUT /v1/program` validated every stored value).
 */
export function fraudSettingsOf(settings: Record<string, unknown>): FraudSettings {
  // Only the four fraud keys are read: spreading the whole settings object cost every sale ~15 µs.
  const stored = settings as Partial<FraudSettings>;
  return {
    fraud_rules: { ...defaultFraudSettings.fraud_rules, ...stored.fraud_rules },
    same_address_limit: stored.same_address_limit ?? defaultFraudSettings.same_address_limit,
    fast_conversion_seconds: stored.fast_conversion_seconds ?? defaultFraudSettings.fast_conversion_seconds,
    paid_ads_allowed: stored.paid_ads_allowed ?? defaultFraudSettings.paid_ads_allowed,
  };
}

/** Bounds of the numeric settings (inclusive). */
export const sameAddressLimitRange = { minimum: 1, maximum: 1000 } as const;
export const fastConversionSecondsRange = { minimum: 0, maximum: 86_400 } as const;

/** Query parameters that ad networks add to a landing URL when the visit came from a paid ad. */
export const adClickParameters = ['gclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'ttclid'] as const;

/** What one rule may read. Every field is optional: a missing one makes its rules silent. */
export interface FraudFacts {
  /** The customer's or subscriber's e-mail. */
  email?: string | null;
  /** The owner's (partner's or referring customer's) e-mail. */
  ownerEmail?: string | null;
  /** The buyer's address, as the day's count names it (a salted hash, never the address itself). */
  address?: string;
  /**
   * The buyer's address as the portal sightings name it (a keyed hash, one per server key: a
   * sighting recorded under an older key still matches).
   */
  portalAddresses?: readonly string[];
  /** The buyer's click visitor (the click id its cookie carried, forwarded as `context.click_id`). */
  visitor?: string;
  /** Addresses and click ids the owner itself used in its portal (named as the two above). */
  ownerAddresses?: readonly string[];
  ownerVisitors?: readonly string[];
  /** Referred signups of the same owner from the same address in the last day, this one excluded. */
  signupsFromAddress?: number;
  /** The landing URL of the attributed click. */
  landingUrl?: string;
  /** When the attributed click happened and when the sale did (stored timestamps). */
  clickedAt?: string;
  soldAt?: string;
}

export type FraudEvidence = Record<string, string | number | boolean | string[]>;

export interface RuleVerdict {
  rule: FraudRule;
  action: FraudAction;
  evidence: FraudEvidence;
}

type Finding = FraudEvidence | undefined;

/** Whether each rule fired, and on what; `undefined` when it did not (or could not). */
const findings: Record<FraudRule, (facts: FraudFacts, settings: FraudSettings) => Finding> = {
  self_referral: (facts): Finding => {
    const email = canonicalEmail(facts.email);
    if (email !== undefined && email === canonicalEmail(facts.ownerEmail)) return { matched: 'email' };
    return undefined;
  },
  // The owner's own address or browser says "look" (a household, an office, a shared network),
  // not "self-referral": that rule's block denies outright (ADR 0135).
  same_address: (facts, settings): Finding => {
    const visitor = facts.visitor;
    if (visitor !== undefined && (facts.ownerVisitors ?? []).includes(visitor))
      return { seen_in_portal: 'click', click_id: visitor };
    const owners = facts.ownerAddresses ?? [];
    const address = (facts.portalAddresses ?? []).find((name) => owners.includes(name));
    if (address !== undefined) return { seen_in_portal: 'address', address };
    if (facts.address === undefined) return undefined;
    const count = facts.signupsFromAddress;
    if (count !== undefined && count >= settings.same_address_limit)
      return { address: facts.address, signups_in_a_day: count, limit: settings.same_address_limit };
    return undefined;
  },
  disposable_email: (facts) => {
    const domain = domainOf(facts.email);
    return domain !== undefined && isDisposableDomain(domain) ? { domain } : undefined;
  },
  paid_ads: (facts, settings) => {
    if (settings.paid_ads_allowed || facts.landingUrl === undefined) return undefined;
    const found = adParametersIn(facts.landingUrl);
    return found.length > 0 ? { parameters: found } : undefined;
  },
  fast_conversion: (facts, settings) => {
    if (facts.clickedAt === undefined || facts.soldAt === undefined) return undefined;
    const seconds = (Date.parse(facts.soldAt) - Date.parse(facts.clickedAt)) / 1000;
    if (!Number.isFinite(seconds) || seconds < 0 || seconds >= settings.fast_conversion_seconds)
      return undefined;
    return { seconds_after_click: Math.floor(seconds), limit: settings.fast_conversion_seconds };
  },
};

/** One rule's verdict: the program's action when it fired, `off` otherwise. */
export function checkRule(rule: FraudRule, facts: FraudFacts, settings: FraudSettings): RuleVerdict {
  const action = settings.fraud_rules[rule];
  const evidence = action === 'off' ? undefined : findings[rule](facts, settings);
  return evidence === undefined ? { rule, action: 'off', evidence: {} } : { rule, action, evidence };
}

export interface FraudDecision {
  /** At least one rule blocks: the signup is stored without an owner, the sale earns nothing. */
  blocked: boolean;
  /** The rules that fired (flag or block), in the order of `fraudRules`. */
  fired: RuleVerdict[];
}

/** Every rule over the same facts. */
export function decideFraud(facts: FraudFacts, settings: FraudSettings): FraudDecision {
  const fired = fraudRules.map((rule) => checkRule(rule, facts, settings)).filter((v) => v.action !== 'off');
  return { blocked: fired.some((v) => v.action === 'block'), fired };
}

/**
 * An IP address as the portal sightings compare it: trimmed, lower case, an IPv4 address mapped
 * into IPv6 (`::ffff:203.0.113.9`, as a dual-stack server reports it) as plain IPv4.
 */
export function canonicalAddress(ip: string): string {
  const lower = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  return mapped?.[1] ?? lower;
}

/** The domain of an address, lower case; undefined when there is none. */
function domainOf(email: string | null | undefined): string | undefined {
  if (!email) return undefined;
  const at = email.lastIndexOf('@');
  const domain =
    at < 0
      ? ''
      : email
          .slice(at + 1)
          .trim()
          .toLowerCase();
  return domain === '' ? undefined : domain;
}

/** The ad click parameters a URL carries (names only: their values identify nobody useful). */
export function adParametersIn(url: string): string[] {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    return [];
  }
  return adClickParameters.filter((name) => params.has(name));
}

/**
 * The rules a sale runs on its own (the others judge the signup): `fast_conversion`, and
 * `same_address` for an address or click its owner used in the portal (a sale counts no signups).
 */
export const saleFraudRules: readonly FraudRule[] = ['same_address', 'fast_conversion'];

/**
 * The rules of a sale over what its `context` names: the click's time against the sale's, the
 * buyer's address and click against the owner's portal sightings. A rule the program set on a
 * signup only is not run here; neither is one without its value.
 */
export function decideSaleFraud(
  facts: Pick<
    FraudFacts,
    'clickedAt' | 'soldAt' | 'portalAddresses' | 'visitor' | 'ownerAddresses' | 'ownerVisitors'
  >,
  settings: FraudSettings,
): FraudDecision {
  const fired = saleFraudRules
    .map((rule) => checkRule(rule, facts, settings))
    .filter((v) => v.action !== 'off');
  return { blocked: fired.some((v) => v.action === 'block'), fired };
}

/** Whether a program runs any sale rule at all: when none, a sale reads no click. */
export const runsSaleRules = (settings: FraudSettings): boolean =>
  saleFraudRules.some((rule) => settings.fraud_rules[rule] !== 'off');

/** The decision without one rule's verdict (a caller that applies that rule its own way). */
export function exceptRule(decision: FraudDecision, rule: FraudRule): FraudDecision {
  const fired = decision.fired.filter((v) => v.rule !== rule);
  return { blocked: fired.some((v) => v.action === 'block'), fired };
}

/**
 * What a decided flag does to the money it held (issue 27): `pass` to the customer's next open
 * flag, `release` to the normal rules (a refer-a-friend reward enters its balance), or, when the
 * owner confirms with `deny`, `void` a refer-a-friend reward or `deny` a commission (a newsletter
 * holds no money: its hold ends in nothing).
 */
export type HoldEnd = 'pass' | 'release' | 'deny' | 'void';

export function holdEndOf(type: ProgramType, decided: { deny: boolean; anotherOpenFlag: boolean }): HoldEnd {
  if (decided.deny) return type === 'referral' ? 'void' : 'deny';
  return decided.anotherOpenFlag ? 'pass' : 'release';
}
