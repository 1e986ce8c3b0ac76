import { defaultBrandingSettings } from './branding.ts';
import { defaultCommissionSettings } from './commissions.ts';
import { defaultFraudSettings } from './fraud.ts';
import { defaultPayoutSettings } from './payouts.ts';
import type { ProgramType } from './program-types.ts';
import { defaultRewardSettings } from './rewards.ts';

/**
 * Defaults of each type's `program_settings` and `portal_settings`. Stored settings hold only
 * what a client set; reads merge them over these, so a key added later has a value for every
 * existing program.
 */
export const programSettingsDefaults = {
  affiliate: {
    currency: 'USD',
    cookie_lifetime: 60,
    welcome_email_enabled: true,
    partner_auto_approve: true,
    partner_custom_links_enabled: false,
    onboarding_enabled: false,
    partner_email_notifications_enabled: true,
    new_partner_email_enabled: true,
    referral_parameter: 'aff',
    attribution: 'last_click',
    ...defaultCommissionSettings,
    commission_auto_approve: true,
    ...defaultPayoutSettings,
    ...defaultFraudSettings,
    timezone: 'UTC',
    ...defaultBrandingSettings,
  },
  referral: {
    currency: 'USD',
    welcome_email_enabled: true,
    referral_portal_enabled: true,
    rewards_notification_enabled: true,
    referral_parameter: 'ref',
    attribution: 'last_click',
    ...defaultRewardSettings,
    ...defaultFraudSettings,
    timezone: 'UTC',
    ...defaultBrandingSettings,
  },
  newsletter: {
    leaderboard_enabled: true,
    referral_pending_days: 0,
    ...defaultFraudSettings,
    timezone: 'UTC',
    ...defaultBrandingSettings,
  },
} as const satisfies Record<ProgramType, Record<string, unknown>>;

export const portalSettingsDefaults = {
  affiliate: {
    program_page_enabled: true,
    leads_page_enabled: false,
    registration_disabled: false,
    provider_login_enabled: false,
    passwordless_login_enabled: false,
    sub_accounts_enabled: false,
    widget_enabled: false,
    signup_popup_enabled: false,
    embeddable_form_enabled: false,
  },
  referral: {
    registration_disabled: false,
    program_page_enabled: true,
    widget_enabled: false,
    embeddable_form_enabled: false,
    popup_form_enabled: false,
  },
  newsletter: {},
} as const satisfies Record<ProgramType, Record<string, unknown>>;

export function programSettingsOf(type: ProgramType, stored: string): Record<string, unknown> {
  const defaults = programSettingsDefaults[type];
  const settings = { ...defaults, ...parseObject(stored) };
  // A PUT may name some fraud rules only: the others keep their defaults.
  const { fraud_rules: rules } = settings as { fraud_rules?: unknown };
  if (rules !== undefined)
    Object.assign(settings, {
      fraud_rules: { ...defaultFraudSettings.fraud_rules, ...objectOrEmpty(rules) },
    });
  // A commission stored without its duration (the API lets a client leave it out) reads with the
  // documented default, so every reader sees whole terms: "lifetime", no count.
  const { commission } = settings as { commission?: unknown };
  if (type === 'affiliate' && typeof commission === 'object' && commission !== null)
    return { ...settings, commission: { duration: 'lifetime', duration_value: null, ...commission } };
  return settings;
}

export function portalSettingsOf(type: ProgramType, stored: string): Record<string, unknown> {
  return { ...portalSettingsDefaults[type], ...parseObject(stored) };
}

function parseObject(text: string): Record<string, unknown> {
  return objectOrEmpty(JSON.parse(text || '{}'));
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
