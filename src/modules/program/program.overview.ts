import type { Static } from 'typebox';
import type { ProgramContext } from '../../context.ts';
import { logoPath } from '../../core/branding.ts';
import { AppError } from '../../core/errors.ts';
import { formatAmount } from '../../core/money.ts';
import { partnerPortalUrl } from '../../core/portal-url.ts';
import { portalSettingsOf, programSettingsOf } from '../../core/program-settings.ts';
import {
  activeRewards,
  growth,
  OVERVIEW_WINDOW_DAYS,
  participation,
  programMetrics,
} from '../../core/program-stats.ts';
import { type ProgramType, programTypeLabel } from '../../core/program-types.ts';
import { addDays, dayOf, nowTimestamp } from '../../core/time.ts';
import { countRewards } from '../rewards/rewards.service.ts';
import * as repository from './program.repository.ts';
import type {
  ProgramOverviewByType,
  portalSettingsByType,
  programSettingsByType,
} from './program.schemas.ts';

/** The overview of a program of type `T`, as the route's variant for `T` declares it. */
export type ProgramOverview<T extends ProgramType = ProgramType> = T extends ProgramType
  ? Static<(typeof ProgramOverviewByType)[T]>['data']
  : never;

type ProgramRow = NonNullable<Awaited<ReturnType<typeof repository.findProgramWithWindowSums>>>['row'];

/**
 * Stored settings are written only through the update body of the program's own type (checked by
 * its schema) and read over the type's defaults, so they have that type's settings shape.
 */
const typedSettings = <T extends ProgramType>(type: T, row: ProgramRow) => ({
  program: programSettingsOf(type, row.settings) as Static<(typeof programSettingsByType)[T]>,
  portal: portalSettingsOf(type, row.portal_settings) as Static<(typeof portalSettingsByType)[T]>,
});

/** The overview's two windows for `today`, kept for the day (every request of a day asks the same). */
let lastWindow: { today: string; beforeFrom: string; currentFrom: string } | undefined;
function overviewWindow(today: string) {
  if (lastWindow?.today !== today) {
    const currentFrom = addDays(today, -(OVERVIEW_WINDOW_DAYS - 1));
    lastWindow = { today, currentFrom, beforeFrom: addDays(currentFrom, -OVERVIEW_WINDOW_DAYS) };
  }
  return lastWindow;
}

/** A figure now, the 30 days before, and the growth between them, under the overview's three names. */
type Figure<Name extends string> = { [Key in Name | `${Name}_before` | `${Name}_growth`]: number };

/** A figure's `_before` and `_growth` names, made once (a name built per request is hashed anew). */
const figureNames = new Map<string, readonly [before: string, growth: string]>();
function figure<Name extends string>(name: Name, now: number, then: number): Figure<Name> {
  let keys = figureNames.get(name);
  if (!keys) figureNames.set(name, (keys = [`${name}_before`, `${name}_growth`]));
  // The three keys are exactly Figure<Name>'s: `name`, `${name}_before`, `${name}_growth`.
  return { [name]: now, [keys[0]]: then, [keys[1]]: growth(now, then) } as Figure<Name>;
}

/** `GET /v1/program`: the program, its settings and its figures over the last 30 days. */
export async function getProgramOverview(
  ctx: ProgramContext,
  links: { baseUrl: string },
): Promise<ProgramOverview> {
  const found = await repository.findProgramWithWindowSums(
    ctx.database.db,
    ctx.program.id,
    overviewWindow(dayOf(nowTimestamp(ctx.clock))),
  );
  if (!found) throw new AppError('not_found', 'Program not found.');
  const { row, sums } = found;
  // Counts as numbers; revenue stays exact (bigint micro-units) until it is formatted.
  const current = new Map(sums.map((sum) => [sum.metric, Number(sum.current)]));
  const before = new Map(sums.map((sum) => [sum.metric, Number(sum.before)]));
  const count = <Name extends string>(metric: string, name: Name) =>
    figure(name, current.get(metric) ?? 0, before.get(metric) ?? 0);
  const customersNow = current.get(programMetrics.customers) ?? 0;
  const customersBefore = before.get(programMetrics.customers) ?? 0;

  const revenue: Record<string, string> = {};
  for (const { metric, current: micros } of sums) {
    if (!metric.startsWith('revenue:') || micros === 0n) continue;
    revenue[metric.slice('revenue:'.length)] = formatAmount(micros, metric.slice('revenue:'.length));
  }

  const programOf = <T extends ProgramType>(
    type: T,
    settings: Static<(typeof programSettingsByType)[T]>,
  ) => ({
    id: row.id,
    public_id: row.public_id,
    website: row.website,
    initial: row.name.trim().charAt(0).toUpperCase(),
    type: programTypeLabel[row.type],
    name: row.name,
    created_at: dayOf(row.created_at),
    last_edited: dayOf(row.updated_at),
    program_settings: settings,
    portal_settings: typedSettings(type, row).portal,
    uploaded_logo_url: row.logo_digest ? `${links.baseUrl}${logoPath(row.public_id, row.logo_digest)}` : null,
  });
  const figures = async (settings: Record<string, unknown>) => ({
    ...count(programMetrics.customers, 'total_customers'),
    ...count(programMetrics.referringCustomers, 'total_referring_customers'),
    ...count(programMetrics.referredCustomers, 'total_referred_customers'),
    ...count(programMetrics.sales, 'total_sales'),
    ...count(programMetrics.clicks, 'total_clicks'),
    ...count(programMetrics.rejectedSelfReferrals, 'total_rejected_self_referrals'),
    ...figure(
      'participation',
      participation(current.get(programMetrics.referringCustomers) ?? 0, customersNow),
      participation(before.get(programMetrics.referringCustomers) ?? 0, customersBefore),
    ),
    active_rewards: activeRewards(
      row.type,
      settings,
      row.type === 'newsletter' ? await countRewards(ctx.database.db, ctx.program.id) : 0,
    ),
    total_revenue_from_sales: revenue,
  });

  const noPortal = {
    overview_program_current_settings: { partner_portal_url: null, website_url: row.website },
  };
  switch (row.type) {
    case 'affiliate': {
      // The portal host lives in a column of its own (unique across programs), shown with the settings.
      const settings = { ...typedSettings('affiliate', row).program, portal_host: row.portal_host };
      return {
        program: programOf('affiliate', settings),
        ...(await figures(settings)),
        // Only affiliate programs have partners, so only they have a partner portal.
        overview_program_current_settings: {
          partner_portal_url: partnerPortalUrl(
            links.baseUrl,
            row.public_id,
            row.portal_host,
            ctx.config.publicUrl,
          ),
          website_url: row.website,
        },
      };
    }
    case 'referral': {
      const settings = typedSettings('referral', row).program;
      return { program: programOf('referral', settings), ...(await figures(settings)), ...noPortal };
    }
    case 'newsletter': {
      const settings = typedSettings('newsletter', row).program;
      return { program: programOf('newsletter', settings), ...(await figures(settings)), ...noPortal };
    }
  }
}
