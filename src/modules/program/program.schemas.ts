import { type Static, type TNumber, type TObject, type TSchema, Type } from 'typebox';
import { referralPendingDaysRange } from '../../core/milestones.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { DateOnly, Success } from '../../http/schemas.ts';
import { brandingSettingsSchema } from './program.branding.schemas.ts';
import { fraudSettingsSchema } from './program.fraud.schemas.ts';

/**
 * Each type's settings, as one schema: responses use it whole, `PUT /v1/program` takes any subset
 * of its keys and nothing else. Modules that add settings (commissions, rewards) add keys here.
 */
export const Currency = Type.String({ format: 'iso4217', description: 'ISO 4217 currency code' });
const ReferralParameter = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,32}$',
  description: 'Query parameter of referral link URLs (Vouch extension)',
});
const Attribution = Type.Union([Type.Literal('last_click'), Type.Literal('first_click')], {
  description:
    'Whether a later click replaces a stored referral cookie (`last_click`, default) or the first one stays (`first_click`); Vouch extension',
});

/**
 * A refer-a-friend reward (core/rewards.ts), or null to turn that side off. Written as one
 * nullable object rather than a union with null, so that a wrong field gets its own message.
 */
const rewardSettingObject = Type.Object(
  {
    type: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
    // Paid exactly like any amount (core/money.ts): at most six decimal places.
    value: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, 'x-amount': { sign: 'any' } }),
    is_currency: Type.Boolean(),
    amount_units: Type.String({
      pattern: '^[A-Za-z][A-Za-z0-9_ -]{0,31}$',
      description: 'A currency code when is_currency is true, otherwise a unit name (points, discount)',
    }),
    trigger: Type.Union([Type.Literal('first_purchase'), Type.Literal('every_purchase')]),
    limit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'Most rewards of this side per referred customer; null: no limit',
    }),
  },
  {
    // A currency reward must name a real currency; other units are free names.
    if: { type: 'object', properties: { is_currency: { const: true } }, required: ['is_currency'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable.
    then: { type: 'object', properties: { amount_units: { type: 'string', format: 'iso4217' } } },
  },
);
const RewardSetting = Type.Unsafe<Static<typeof rewardSettingObject> | null>({
  ...rewardSettingObject,
  type: ['object', 'null'],
  description: 'A refer-a-friend reward; null turns this side off',
});

/** Affiliate commissions (core/commissions.ts): what a partner earns on a sale. */
const CommissionKind = Type.Union([Type.Literal('percent'), Type.Literal('fixed')]);
const CommissionValue = Type.Number({
  minimum: 0,
  maximum: 1_000_000_000,
  description: 'Percent, or an amount',
  // Paid exactly like any amount (core/money.ts): at most six decimal places.
  'x-amount': { sign: 'any' },
});
const CommissionSetting = Type.Object(
  {
    type: CommissionKind,
    value: CommissionValue,
    duration: Type.Union(
      [
        Type.Literal('lifetime'),
        Type.Literal('times'),
        Type.Literal('days'),
        Type.Literal('months'),
        Type.Literal('years'),
      ],
      { description: 'How long a customer earns its partner commissions; default lifetime' },
    ),
    duration_value: Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
      description: 'Sales (times) or days, months, years; null with lifetime',
    }),
  },
  { required: ['type', 'value'] },
);
const ProductCommission = Type.Object(
  {
    product_id: Type.String({ maxLength: 255 }),
    product_type: Type.String({ maxLength: 255 }),
    type: CommissionKind,
    value: CommissionValue,
  },
  { required: ['type', 'value'] },
);
const tier2Object = Type.Object({ type: CommissionKind, value: CommissionValue });
const Tier2Commission = Type.Unsafe<Static<typeof tier2Object> | null>({
  ...tier2Object,
  type: ['object', 'null'],
  description: 'What the referring partner of the earning partner gets; null: no second tier',
});

/** Commission review and payouts (commissions and payouts modules). */
const payoutSettingsSchema = {
  commission_auto_approve: Type.Boolean({
    description: 'Whether commissions approve themselves at the end of their hold (default true)',
  }),
  payout_minimum: Type.Record(
    Type.String({ pattern: '^[A-Z]{3}$' }),
    Type.Number({ minimum: 0, maximum: 999_999_999_999, 'x-amount': { sign: 'non-negative' } }),
    {
      description:
        'Per currency (upper-case code): the net amount a partner needs before a payout pays it; default none',
    },
  ),
  payout_terms_days: Type.Integer({
    minimum: 0,
    maximum: 3650,
    description: 'Days after approval before a commission can be paid out; default 0',
  }),
};

/** A DNS host name of at least two labels (letters, digits, inner hyphens), any case. */
const PORTAL_HOST =
  '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$';

const TimeZoneSetting = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'IANA time zone the reports count days in (default UTC; a Vouch extension): exact for every figure read from rows, past ones included; clicks stay per UTC day',
  examples: ['Europe/Berlin'],
});

export const programSettingsByType = {
  affiliate: Type.Object({
    currency: Currency,
    cookie_lifetime: Type.Integer({ minimum: 1, maximum: 9_999_999, description: 'Days' }),
    welcome_email_enabled: Type.Boolean(),
    partner_auto_approve: Type.Boolean({
      description:
        'Whether partners who sign up in the portal are approved at once (default true); false: pending review (Vouch extension)',
    }),
    partner_custom_links_enabled: Type.Boolean({
      description:
        'Whether partners may add links with keys of their choice in the portal (default false; a Vouch extension)',
    }),
    portal_host: Type.Union(
      [
        Type.String({
          maxLength: 253,
          pattern: PORTAL_HOST,
          description: 'A host name without scheme, port or path, e.g. partners.acme.com',
        }),
        Type.Null(),
      ],
      {
        description:
          "The partner portal's own host name: requests whose Host is it get the portal at `/` (unique across programs; null: none; a Vouch extension)",
      },
    ),
    onboarding_enabled: Type.Boolean(),
    partner_email_notifications_enabled: Type.Boolean(),
    new_partner_email_enabled: Type.Boolean({
      description:
        "E-mail the program's owners in the owner console when a partner applies and waits for approval (default true; a Vouch extension)",
    }),
    referral_parameter: ReferralParameter,
    attribution: Attribution,
    commission: CommissionSetting,
    product_commissions: Type.Array(ProductCommission, {
      maxItems: 1000,
      description: 'Overrides by product_id and/or product_type; the most specific match wins',
    }),
    commission_hold_days: Type.Integer({
      minimum: 0,
      maximum: 3650,
      description: 'Days a commission stays in review (`review_period`) before it is `ok`',
    }),
    tier2_commission: Tier2Commission,
    ...payoutSettingsSchema,
    ...fraudSettingsSchema,
    timezone: TimeZoneSetting,
    ...brandingSettingsSchema,
  }),
  referral: Type.Object({
    currency: Type.String({
      format: 'iso4217',
      description: 'ISO 4217 code of purchases sent without `amount_units` (default USD; a Vouch extension)',
    }),
    welcome_email_enabled: Type.Boolean({
      description:
        'E-mail each new customer its referral link and portal while the portal is on (default true; a Vouch extension)',
    }),
    referral_portal_enabled: Type.Boolean(),
    rewards_notification_enabled: Type.Boolean(),
    referral_parameter: ReferralParameter,
    attribution: Attribution,
    referrer_reward: RewardSetting,
    referred_reward: RewardSetting,
    ...fraudSettingsSchema,
    timezone: TimeZoneSetting,
    ...brandingSettingsSchema,
  }),
  newsletter: Type.Object({
    leaderboard_enabled: Type.Boolean({
      description: 'The subscriber portal shows the top 10 referrers by first name (Vouch extension)',
    }),
    referral_pending_days: Type.Integer({
      ...referralPendingDaysRange,
      description:
        'Days a referred subscriber waits before it counts toward its referrer’s milestones; one that unsubscribes within them never counts (default 0; a Vouch extension)',
    }),
    ...fraudSettingsSchema,
    timezone: TimeZoneSetting,
    ...brandingSettingsSchema,
  }),
} satisfies Record<ProgramType, TObject>;

const flags = (...keys: string[]) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Boolean()])));

export const portalSettingsByType = {
  affiliate: flags(
    'program_page_enabled',
    'leads_page_enabled',
    'registration_disabled',
    'provider_login_enabled',
    'passwordless_login_enabled',
    'sub_accounts_enabled',
    'widget_enabled',
    'signup_popup_enabled',
    'embeddable_form_enabled',
  ),
  referral: flags(
    'registration_disabled',
    'program_page_enabled',
    'widget_enabled',
    'embeddable_form_enabled',
    'popup_form_enabled',
  ),
  newsletter: Type.Object({}),
} satisfies Record<ProgramType, TObject>;

const updateBody = (type: ProgramType) =>
  Type.Partial(
    Type.Object({
      name: Type.String({ minLength: 1, maxLength: 255 }),
      website: Type.String({ format: 'http-url', maxLength: 250 }),
      program_settings: Type.Partial(programSettingsByType[type], { additionalProperties: false }),
      portal_settings: Type.Partial(portalSettingsByType[type], { additionalProperties: false }),
    }),
    { title: `Update${type.charAt(0).toUpperCase()}${type.slice(1)}ProgramBody` },
  );

export const UpdateProgramBodyByType = {
  affiliate: updateBody('affiliate'),
  referral: updateBody('referral'),
  newsletter: updateBody('newsletter'),
} satisfies Record<ProgramType, TSchema>;

/** The body as validated: the settings of the caller's type, each optional. */
export type UpdateProgramBody = Static<ReturnType<typeof updateBody>>;

export const UpdateProgramResponse = Type.Object({ status: Type.Literal(1), message: Type.String() });

/** A figure's three properties; named in the type too, so readers of the overview see each by name. */
const counter = <Name extends string>(name: Name) =>
  ({
    [name]: Type.Number(),
    [`${name}_before`]: Type.Number(),
    [`${name}_growth`]: Type.Number({ description: 'Percent change against the 30 days before' }),
  }) as Record<Name | `${Name}_before` | `${Name}_growth`, TNumber>;

const overview = (type: ProgramType) =>
  Success(
    Type.Object(
      {
        program: Type.Object({
          id: Type.Integer(),
          public_id: Type.String(),
          website: Type.Union([Type.String(), Type.Null()]),
          initial: Type.String(),
          type: Type.String({ examples: ['Referral'] }),
          name: Type.String(),
          created_at: DateOnly,
          last_edited: DateOnly,
          program_settings: programSettingsByType[type],
          portal_settings: portalSettingsByType[type],
          uploaded_logo_url: Type.Union([Type.String(), Type.Null()], {
            description:
              'Where Vouch serves the logo uploaded with `PUT /v1/program/logo` (shown instead of `logo_url`), or null (a Vouch extension)',
          }),
        }),
        ...counter('total_customers'),
        ...counter('total_referring_customers'),
        ...counter('total_referred_customers'),
        ...counter('total_sales'),
        ...counter('total_clicks'),
        ...counter('total_rejected_self_referrals'),
        ...counter('participation'),
        active_rewards: Type.Integer(),
        total_revenue_from_sales: Type.Record(Type.String(), Type.String(), {
          description: 'Formatted revenue of the last 30 days, keyed by lower-case currency',
        }),
        overview_program_current_settings: Type.Object({
          partner_portal_url: Type.Union([Type.String(), Type.Null()]),
          website_url: Type.Union([Type.String(), Type.Null()]),
        }),
      },
      { title: `${type.charAt(0).toUpperCase()}${type.slice(1)}ProgramOverview` },
    ),
  );

export const ProgramOverviewByType = {
  affiliate: overview('affiliate'),
  referral: overview('referral'),
  newsletter: overview('newsletter'),
} satisfies Record<ProgramType, TSchema>;

export const KeyCheckResponse = Success(
  Type.Object({
    program: Type.Object({
      id: Type.Integer(),
      pub_id: Type.String(),
      name: Type.String(),
      type: Type.String(),
    }),
    key: Type.Object({
      scope: Type.Union([Type.Literal('full'), Type.Literal('read')], {
        description: 'What the key may do: `read` keys are refused every write',
      }),
    }),
  }),
);

export const LogoResponse = Success(
  Type.Object({
    url: Type.String({ description: 'Where Vouch serves the logo: its path changes with the file' }),
    content_type: Type.Union([
      Type.Literal('image/png'),
      Type.Literal('image/jpeg'),
      Type.Literal('image/svg+xml'),
    ]),
    size: Type.Integer({ description: 'Bytes as stored (an SVG after cleaning)' }),
  }),
);

export const RemoveLogoResponse = Type.Object({ status: Type.Literal(1), message: Type.String() });
