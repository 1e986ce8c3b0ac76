import { AppError } from '../../core/errors.ts';
import { type FieldProblem, renderProblem } from '../../core/messages.ts';
import type { ProgramType } from '../../core/program-types.ts';
import { changesBetween } from '../activity/activity.service.ts';
import { getLogoInfo, removeLogo, uploadLogo } from '../program/program.logo.service.ts';
import { getProgramOverview, type UpdateProgramBody, updateProgram } from '../program/program.service.ts';
import { type ConsoleProgram, logActivity } from './console.programs.service.ts';

/**
 * The settings page: each setting a form field named by its path in `PUT /v1/program`'s body
 * (`program_settings.commission.value`), read from and written through the program service, and
 * checked by the route's own schema, so a setting out of range gets the API's message.
 */

export { LOGO_MAX_BYTES } from '../../core/branding.ts';
export { UpdateProgramBodyByType } from '../program/program.schemas.ts';

export interface SettingField {
  path: string;
  label: string;
  kind: 'text' | 'number' | 'checkbox' | 'select';
  options?: readonly { value: string; label: string }[];
  hint?: string;
  /** An empty number or text field sends null (a setting that may be unset); an empty number is refused otherwise. */
  nullable?: boolean;
}

export interface SettingGroup {
  title: string;
  fields: readonly SettingField[];
}

const general: SettingGroup = {
  title: 'Program',
  fields: [
    { path: 'name', label: 'Name', kind: 'text' },
    { path: 'website', label: 'Website', kind: 'text', hint: 'Like https://example.com.' },
    {
      path: 'program_settings.timezone',
      label: 'Time zone of the reports',
      kind: 'text',
      hint: 'An IANA name, like Europe/Berlin.',
    },
  ],
};

/** The program's branding (core/branding.ts), in every type; the logo file has its own form. */
const branding: SettingGroup = {
  title: 'Branding',
  fields: [
    {
      path: 'program_settings.brand_color',
      label: 'Brand colour',
      kind: 'text',
      nullable: true,
      hint: 'Like #1d4ed8; white text on it must be readable (contrast 4.5:1). Empty: Vouch’s blue.',
    },
    {
      path: 'program_settings.logo_url',
      label: 'Logo URL',
      kind: 'text',
      nullable: true,
      hint: 'An https address of your logo; an uploaded logo is shown instead.',
    },
    {
      path: 'program_settings.terms_url',
      label: 'Terms URL',
      kind: 'text',
      nullable: true,
      hint: 'An https address of your program’s terms, linked from the sign-up and every page.',
    },
  ],
};

const check = (path: string, label: string, hint?: string): SettingField => ({
  path,
  label,
  kind: 'checkbox',
  ...(hint ? { hint } : {}),
});

const groupsByType: Record<ProgramType, readonly SettingGroup[]> = {
  affiliate: [
    general,
    {
      title: 'Commission',
      fields: [
        {
          path: 'program_settings.currency',
          label: 'Currency',
          kind: 'text',
          hint: 'An ISO 4217 code, like USD.',
        },
        {
          path: 'program_settings.commission.type',
          label: 'Commission type',
          kind: 'select',
          options: [
            { value: 'percent', label: 'A percentage of each sale' },
            { value: 'fixed', label: 'A fixed amount per sale' },
          ],
        },
        {
          path: 'program_settings.commission.value',
          label: 'Commission value',
          kind: 'number',
          hint: 'Percent, or an amount.',
        },
        {
          path: 'program_settings.commission.duration',
          label: 'Earned for',
          kind: 'select',
          options: [
            { value: 'lifetime', label: 'The customer’s lifetime' },
            { value: 'times', label: 'A number of sales' },
            { value: 'days', label: 'A number of days' },
            { value: 'months', label: 'A number of months' },
            { value: 'years', label: 'A number of years' },
          ],
        },
        {
          path: 'program_settings.commission.duration_value',
          label: 'How many',
          kind: 'number',
          nullable: true,
          hint: 'Sales, days, months or years; empty for a lifetime.',
        },
        {
          path: 'program_settings.commission_hold_days',
          label: 'Days in review before approval',
          kind: 'number',
        },
        check('program_settings.commission_auto_approve', 'Approve commissions at the end of their review'),
      ],
    },
    {
      title: 'Payouts',
      fields: [
        {
          path: 'program_settings.payout_terms_days',
          label: 'Days after approval before a payout',
          kind: 'number',
        },
      ],
    },
    {
      title: 'Tracking',
      fields: [
        { path: 'program_settings.cookie_lifetime', label: 'Days a visitor is remembered', kind: 'number' },
        { path: 'program_settings.referral_parameter', label: 'Referral parameter in links', kind: 'text' },
        {
          path: 'program_settings.attribution',
          label: 'Attribution',
          kind: 'select',
          options: [
            { value: 'last_click', label: 'Last click: a later click replaces the earlier one' },
            { value: 'first_click', label: 'First click: the first referral stays' },
          ],
        },
      ],
    },
    {
      title: 'Partner portal',
      fields: [
        check('program_settings.partner_auto_approve', 'Approve partners who sign up at once'),
        check('program_settings.partner_custom_links_enabled', 'Partners may choose their own link keys'),
        check('portal_settings.program_page_enabled', 'Show the program page'),
        check('portal_settings.registration_disabled', 'Close the sign-up'),
        check('portal_settings.passwordless_login_enabled', 'Sign-in by e-mailed link'),
        check('portal_settings.leads_page_enabled', 'Partners may submit leads'),
      ],
    },
    {
      title: 'E-mails',
      fields: [
        check('program_settings.welcome_email_enabled', 'Welcome new partners'),
        check(
          'program_settings.partner_email_notifications_enabled',
          'Tell partners of new commissions and payouts',
        ),
        check('program_settings.new_partner_email_enabled', 'Tell the owners when a partner applies'),
      ],
    },
  ],
  referral: [
    general,
    {
      title: 'Customers',
      fields: [
        {
          path: 'program_settings.currency',
          label: 'Currency',
          kind: 'text',
          hint: 'An ISO 4217 code, like USD.',
        },
        check('program_settings.referral_portal_enabled', 'Customer portal'),
        check('program_settings.welcome_email_enabled', 'Welcome new customers with their link'),
        check('program_settings.rewards_notification_enabled', 'Tell customers of their rewards'),
        { path: 'program_settings.referral_parameter', label: 'Referral parameter in links', kind: 'text' },
      ],
    },
  ],
  newsletter: [
    general,
    { title: 'Pages', fields: [check('program_settings.leaderboard_enabled', 'Show the leaderboard')] },
  ],
};

export const settingGroups = (type: ProgramType) => [...groupsByType[type], branding];

const valueAt = (root: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (at, key) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[key] : undefined),
      root,
    );

/** The program's current values, as the form shows them (text). */
export async function currentValues(
  program: ConsoleProgram,
  links: { baseUrl: string },
): Promise<Record<string, string>> {
  const overview = await getProgramOverview(program.ctx, links);
  const source = {
    name: overview.program.name,
    website: overview.program.website ?? '',
    program_settings: overview.program.program_settings,
    portal_settings: overview.program.portal_settings,
  };
  const values: Record<string, string> = {};
  for (const group of settingGroups(program.type))
    for (const field of group.fields) {
      const value = valueAt(source, field.path);
      values[field.path] =
        field.kind === 'checkbox' ? (value === true ? 'yes' : '') : value == null ? '' : String(value);
    }
  return values;
}

/** The body `PUT /v1/program` would get from the posted form: numbers as numbers, boxes as booleans. */
export function bodyOf(
  type: ProgramType,
  form: (path: string) => string,
): { body: Record<string, unknown>; values: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const values: Record<string, string> = {};
  for (const group of settingGroups(type))
    for (const field of group.fields) {
      const text = form(field.path);
      values[field.path] = text;
      let value: unknown = text;
      if (field.kind === 'checkbox') value = text !== '';
      else if (field.kind === 'text' && field.nullable && text.trim() === '') value = null;
      else if (field.kind === 'number')
        value =
          text === '' ? (field.nullable ? null : text) : Number.isNaN(Number(text)) ? text : Number(text);
      else if (field.path === 'website' && text === '') continue;
      const keys = field.path.split('.');
      let at = body;
      for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
      at[keys.at(-1) ?? field.path] = value;
    }
  return { body, values };
}

export type SettingsOutcome = { kind: 'saved' } | { kind: 'invalid'; errors: Record<string, string> };

/** The field errors of the page, keyed by the path of the field each names. */
export function errorsOf(problems: readonly FieldProblem[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const problem of problems) {
    const said = renderProblem(problem);
    errors[problem.field] = errors[problem.field] ? `${errors[problem.field]} ${said}` : said;
  }
  return errors;
}

/** Saves a checked body through the program service: its own refusals come back as field errors. */
export async function saveSettings(
  program: ConsoleProgram,
  body: UpdateProgramBody,
  links: { baseUrl: string },
): Promise<SettingsOutcome> {
  try {
    const before = await currentValues(program, links);
    await updateProgram(program.ctx, body);
    // Both sides as the form shows them: a box reads `yes` or nothing, a number as text.
    const after = await currentValues(program, links);
    await logActivity(program, 'settings.update', { changes: changesBetween(before, after) });
    return { kind: 'saved' };
  } catch (error) {
    if (error instanceof AppError && error.status === 422)
      return { kind: 'invalid', errors: errorsOf(error.problems) };
    throw error;
  }
}

/** The program's public pages, shown with copy buttons: the partner portal of an affiliate program. */
export async function portalLinks(program: ConsoleProgram, links: { baseUrl: string }) {
  const overview = await getProgramOverview(program.ctx, links);
  const portal = overview.overview_program_current_settings.partner_portal_url;
  return portal ? [{ label: 'Partner portal', url: portal }] : [];
}

/** The uploaded logo, as the settings page shows it: its URL on Vouch, or null. */
export const currentLogo = (program: ConsoleProgram) => getLogoInfo(program.ctx);

export type LogoOutcome = { kind: 'saved' } | { kind: 'invalid'; error: string };

/** Stores an uploaded logo file; a refusal (type, size) comes back as the logo field's error. */
export async function saveLogo(program: ConsoleProgram, file: Buffer): Promise<LogoOutcome> {
  try {
    const before = await getLogoInfo(program.ctx);
    const after = await uploadLogo(program.ctx, file, undefined);
    await logActivity(program, 'settings.logo.upload', {
      changes: { logo: { before: before?.url ?? null, after: after.url } },
    });
    return { kind: 'saved' };
  } catch (error) {
    if (error instanceof AppError && error.status === 422)
      return { kind: 'invalid', error: errorsOf(error.problems).logo ?? error.message };
    if (error instanceof AppError && error.status === 413) return { kind: 'invalid', error: error.message };
    throw error;
  }
}

/** Removes the uploaded logo (nothing to do when there is none). */
export async function deleteLogo(program: ConsoleProgram): Promise<void> {
  const before = await getLogoInfo(program.ctx);
  if (!before) return;
  await removeLogo(program.ctx);
  await logActivity(program, 'settings.logo.remove', {
    changes: { logo: { before: before.url, after: null } },
  });
}
