import { type Micros, parseAmount, percentOf } from './money.ts';

/**
 * Double-sided rewards of refer-a-friend programs: one purchase of a referred customer can earn
 * a reward for the referrer and one for the buyer, each configured by a program setting
 * (`referrer_reward`, `referred_reward`). Pure: the caller supplies what it knows of the buyer.
 */
export const rewardRoles = ['referrer', 'referred'] as const;
export type RewardRole = (typeof rewardRoles)[number];

export interface RewardSetting {
  /** `percent` of the purchase amount, or a `fixed` amount per purchase. */
  type: 'percent' | 'fixed';
  value: number;
  /** A currency reward (counts in the customer's balance) or units such as points or a discount. */
  is_currency: boolean;
  /** A currency code when `is_currency`, otherwise the unit's name (`points`, `discount`). */
  amount_units: string;
  trigger: 'first_purchase' | 'every_purchase';
  /** Most rewards of this side per referred customer; null: no limit. */
  limit: number | null;
}

export type RewardSettings = Record<`${RewardRole}_reward`, RewardSetting | null>;

export interface Purchase {
  /** Micro-units of the purchase. */
  amount: Micros;
  /** The purchase's currency, when it has one. */
  amountUnits: string | null;
  /** `rewardable: false` on the transaction: it earns nothing. */
  rewardable: boolean;
  /** `rewarded: true` on the transaction: the rewards were already handed out elsewhere. */
  rewarded: boolean;
  /** Purchases the buyer made before this one. */
  previousPurchases: number;
  /** Rewards of each side already earned through this buyer. */
  previousRewards: Record<RewardRole, number>;
}

export interface RewardDraft {
  role: RewardRole;
  /** `ok` counts in the balance; `paid` was settled outside Vouch and does not. */
  status: 'ok' | 'paid';
  /** Micro-units. */
  amount: Micros;
  amountUnits: string;
  isCurrency: boolean;
  commissionType: RewardSetting['type'];
  commissionValue: number;
}

/** The amount one setting earns on one purchase, in micro-units (never rounded beyond a micro). */
export function rewardAmount(setting: RewardSetting, purchaseMicros: Micros): Micros {
  switch (setting.type) {
    case 'percent':
      return percentOf(purchaseMicros, setting.value);
    case 'fixed': {
      const fixed = parseAmount(setting.value);
      // Settings are validated when written; a value that slipped past cannot be paid approximately.
      if (!fixed.ok)
        throw new RangeError(`Reward amount ${setting.value} cannot be kept exactly (${fixed.reason}).`);
      return fixed.micros;
    }
  }
}

/**
 * A percent reward in currency is paid in the purchase's currency (10 % of 50 EUR is 5 EUR); a
 * fixed one, or a non-currency one, in the setting's units. Currency codes are upper case.
 */
function unitsOf(setting: RewardSetting, purchase: Purchase): string {
  if (!setting.is_currency) return setting.amount_units;
  const units =
    setting.type === 'percent' ? (purchase.amountUnits ?? setting.amount_units) : setting.amount_units;
  return units.toUpperCase();
}

function isDue(setting: RewardSetting, role: RewardRole, purchase: Purchase): boolean {
  if (setting.trigger === 'first_purchase' && purchase.previousPurchases > 0) return false;
  if (setting.limit !== null && purchase.previousRewards[role] >= setting.limit) return false;
  return true;
}

/** The rewards one purchase of a referred customer earns: zero, one or two drafts. */
export function calculateRewards(settings: RewardSettings, purchase: Purchase): RewardDraft[] {
  if (!purchase.rewardable) return [];
  const drafts: RewardDraft[] = [];
  for (const role of rewardRoles) {
    const setting = settings[`${role}_reward`];
    if (!setting || !isDue(setting, role, purchase)) continue;
    const amount = rewardAmount(setting, purchase.amount);
    // A refund or a free order earns nothing; negative rewards would silently drain balances.
    if (amount <= 0n) continue;
    drafts.push({
      role,
      status: purchase.rewarded ? 'paid' : 'ok',
      amount,
      amountUnits: unitsOf(setting, purchase),
      isCurrency: setting.is_currency,
      commissionType: setting.type,
      commissionValue: setting.value,
    });
  }
  return drafts;
}

/**
 * Defaults of a new refer-a-friend program (refer-a-friend guide): "give 10, get 10" — when a referred friend
 * buys for the first time, the referrer and the friend each earn 10 USD.
 */
export const defaultRewardSettings = {
  referrer_reward: {
    type: 'fixed',
    value: 10,
    is_currency: true,
    amount_units: 'USD',
    trigger: 'first_purchase',
    limit: null,
  },
  referred_reward: {
    type: 'fixed',
    value: 10,
    is_currency: true,
    amount_units: 'USD',
    trigger: 'first_purchase',
    limit: null,
  },
} as const satisfies RewardSettings;

/** Reads the two settings from a program's merged settings, tolerating absent keys. */
export function rewardSettingsOf(settings: Record<string, unknown>): RewardSettings {
  const read = (key: keyof RewardSettings) =>
    key in settings ? ((settings[key] as RewardSetting | null) ?? null) : defaultRewardSettings[key];
  return { referrer_reward: read('referrer_reward'), referred_reward: read('referred_reward') };
}

/**
 * The entity counter that holds a customer's balance in some units: `balance:usd` for a
 * currency, `units:points` for anything else. Unit codes are case-insensitive.
 */
export function balanceMetric(isCurrency: boolean, units: string): string {
  return `${isCurrency ? 'balance' : 'units'}:${units.toLowerCase()}`;
}

/** How many rewards of one side a buyer has earned (for `limit`): `rewards:referrer`. */
export const rewardCountMetric = (role: RewardRole) => `rewards:${role}`;
