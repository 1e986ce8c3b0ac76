import { changesBetween } from '../activity/activity.service.ts';
import { getProgramOverview, type UpdateProgramBody, updateProgram } from '../program/program.service.ts';
import { numberOrText } from './console.coupons.service.ts';
import { refusedAsErrors } from './console.outcomes.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/**
 * The program settings with a shape of their own, each on a page of its own: a refer-a-friend
 * program's two rewards, an affiliate program's second tier and product commissions. Read from
 * and saved through the program service as `PUT /v1/program` does, checked by its schema.
 */

type Links = { baseUrl: string };

export const rewardSides = [
  { side: 'referrer_reward', title: 'Reward for the referrer', who: 'the customer who referred' },
  { side: 'referred_reward', title: 'Reward for the friend', who: 'the friend who bought' },
] as const;

export const kindChoices = [
  { value: 'percent', label: 'A percentage of the purchase' },
  { value: 'fixed', label: 'A fixed amount' },
] as const;

export const triggerChoices = [
  { value: 'first_purchase', label: 'The friend’s first purchase' },
  { value: 'every_purchase', label: 'Every purchase of the friend' },
] as const;

const rewardKeys = ['type', 'value', 'is_currency', 'amount_units', 'trigger', 'limit'] as const;

async function settingsOf(program: ConsoleProgram, links: Links) {
  return (await getProgramOverview(program.ctx, links)).program.program_settings;
}

/** The two rewards as the form shows them (text), keyed by field name (`referrer_reward.value`). */
export async function rewardValues(program: ConsoleProgram, links: Links): Promise<Record<string, string>> {
  const settings = await settingsOf(program, links);
  const rewards =
    'referrer_reward' in settings
      ? { referrer_reward: settings.referrer_reward, referred_reward: settings.referred_reward }
      : { referrer_reward: null, referred_reward: null };
  const values: Record<string, string> = {};
  for (const { side } of rewardSides) {
    const reward = rewards[side];
    values[`${side}.on`] = reward ? 'yes' : '';
    for (const key of rewardKeys) {
      const value = reward?.[key];
      values[`${side}.${key}`] =
        key === 'is_currency' ? (value === true ? 'yes' : '') : value == null ? '' : String(value);
    }
  }
  return values;
}

/** The body of `PUT /v1/program` the rewards form makes: a side left off is null. */
export function rewardsBody(form: (name: string) => string) {
  const values: Record<string, string> = {};
  const settings: Record<string, unknown> = {};
  for (const { side } of rewardSides) {
    for (const key of ['on', ...rewardKeys]) values[`${side}.${key}`] = form(`${side}.${key}`);
    if (values[`${side}.on`] === '') {
      settings[side] = null;
      continue;
    }
    const text = (key: string) => values[`${side}.${key}`] ?? '';
    settings[side] = {
      type: text('type'),
      value: numeric(text('value')),
      is_currency: text('is_currency') !== '',
      amount_units: text('amount_units'),
      trigger: text('trigger'),
      limit: text('limit') === '' ? null : numberOrText(text('limit')),
    };
  }
  return { body: { program_settings: settings }, values };
}

/** The second tier and the product commissions of an affiliate program. */
export async function commissionRules(program: ConsoleProgram, links: Links) {
  const settings = await settingsOf(program, links);
  const tier2 = 'tier2_commission' in settings ? settings.tier2_commission : null;
  const products = 'product_commissions' in settings ? settings.product_commissions : [];
  return {
    tier2: { type: tier2?.type ?? '', value: tier2 ? String(tier2.value) : '' },
    products: products.map((rule, i) => ({
      index: i,
      productId: rule.product_id ?? '',
      productType: rule.product_type ?? '',
      type: rule.type,
      value: rule.value,
    })),
  };
}

export type CommissionRules = Awaited<ReturnType<typeof commissionRules>>;

/** A number field's value for the body: the number when it is one, else the text (refused as such). */
export const numeric = (text: string): number | string =>
  text === '' || Number.isNaN(Number(text)) ? text : Number(text);

/** The product commissions as `PUT /v1/program` takes them. */
export const productBody = (rules: CommissionRules) =>
  rules.products.map((rule) => ({
    ...(rule.productId ? { product_id: rule.productId } : {}),
    ...(rule.productType ? { product_type: rule.productType } : {}),
    type: rule.type,
    value: rule.value,
  }));

/**
 * Saves the settings of a checked body, logging the fields that changed as `read` shows them;
 * refusals of the service come back keyed by their path.
 */
export async function saveRules(
  program: ConsoleProgram,
  body: UpdateProgramBody,
  read: () => Promise<Record<string, string>>,
) {
  return refusedAsErrors(
    async () => {
      const before = await read();
      await updateProgram(program.ctx, body);
      await logActivity(program, 'settings.update', { changes: changesBetween(before, await read()) });
    },
    'program_settings',
    'path',
  );
}
