import type { Kysely } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { formatAmount } from '../../core/money.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { portalSettingsOf, programSettingsOf } from '../../core/program-settings.ts';
import {
  activeRewards,
  growth,
  OVERVIEW_WINDOW_DAYS,
  participation,
  programMetrics,
  revenueMetric,
} from '../../core/program-stats.ts';
import { type ProgramType, programTypeLabel } from '../../core/program-types.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { addDays, dayOf, nowTimestamp } from '../../core/time.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import type { DB, ProgramsTable } from '../../db/tables.ts';
import { createApiKey } from '../api-keys/api-keys.service.ts';
import { addProgramActivity } from '../counters/counters.figures.repository.ts';
import { countRewards } from '../rewards/rewards.service.ts';
import * as repository from './program.repository.ts';
import type { UpdateProgramBody } from './program.schemas.ts';

/**
 * The program row (name, website, stored settings) for the modules that need its settings in
 * their own flows: sales read the commission and reward rules, links the website. One prepared
 * read, inside the caller's transaction when given one.
 */
export async function readProgram(db: Kysely<DB>, programId: number) {
  return repository.findProgram(db, programId);
}

/** A program by its public id (the public pages' URLs), with its settings read over the defaults. */
/** Every program of a type with its settings (raw JSON), 500 at a time. */
export async function* programsOfType(db: Kysely<DB>, type: ProgramType) {
  let after = 0;
  for (;;) {
    const page = await repository.listProgramsOfType(db, type, after, 500);
    if (page.length > 0) yield page;
    if (page.length < 500) return;
    after = Number(page[page.length - 1]!.id);
  }
}

export async function readProgramByPublicId(db: Kysely<DB>, publicId: string) {
  const row = await repository.findProgramByPublicId(db, publicId);
  return row ? { ...row, programSettings: programSettingsOf(row.type, row.settings) } : undefined;
}

async function getProgramRowOrThrow(ctx: ProgramContext) {
  const row = await repository.findProgram(ctx.database.db, ctx.program.id);
  if (!row) throw new AppError('not_found', 'Program not found.');
  return row;
}

/**
 * The partner portal of an affiliate program: on its own host when it has a `portal_host` (the
 * portal module serves it at `/` there), else `/p/{public id}` on Vouch's base URL. A portal host
 * is taken to be on HTTPS, as a public host name is, unless `PUBLIC_URL` itself is plain HTTP
 * (a local or internal set-up, where the portal host is likely plain HTTP too).
 */
export function partnerPortalUrl(
  baseUrl: string,
  publicId: string,
  portalHost: string | null = null,
  publicUrl?: string,
) {
  if (portalHost === null) return `${baseUrl}/p/${publicId}`;
  const scheme = publicUrl?.startsWith('http://') ? 'http' : 'https';
  return `${scheme}://${portalHost}/`;
}

type ProgramWithSettings = NonNullable<Awaited<ReturnType<typeof readProgramByPublicId>>>;

/**
 * How long the portal pages reuse a program read by its public id or portal host: every page view
 * reads it, and settings change rarely. A change made through this process is seen at once (the
 * update clears them); another instance sees it within this bound.
 */
export const PAGE_PROGRAM_CACHE_MS = 1000;

/** Per app (keyed by its database handle): public ids and hosts are only unique within one database. */
const pageProgramCaches = new WeakMap<
  Deps['database'],
  ShortCache<string, ProgramWithSettings | undefined>
>();

function pageProgramCache(database: Deps['database']) {
  let cache = pageProgramCaches.get(database);
  if (!cache) {
    cache = new ShortCache({ ttlMs: PAGE_PROGRAM_CACHE_MS, capacity: 10_000 });
    pageProgramCaches.set(database, cache);
  }
  return cache;
}

/** The overview's two windows for `today`, kept for the day (every request of a day asks the same). */
let lastWindow: { today: string; beforeFrom: string; currentFrom: string } | undefined;
function overviewWindow(today: string) {
  if (lastWindow?.today !== today) {
    const currentFrom = addDays(today, -(OVERVIEW_WINDOW_DAYS - 1));
    lastWindow = { today, currentFrom, beforeFrom: addDays(currentFrom, -OVERVIEW_WINDOW_DAYS) };
  }
  return lastWindow;
}

/** A figure's `_before` and `_growth` names, made once (a name built per request is hashed anew). */
const figureNames = new Map<string, readonly [before: string, growth: string]>();
function figureKeys(name: string) {
  let keys = figureNames.get(name);
  if (!keys) figureNames.set(name, (keys = [`${name}_before`, `${name}_growth`]));
  return keys;
}

/**
 * A program as the portal pages find it: by its public id (`/p/{id}`) or by the host name a
 * request came to (its `portal_host`, lower case, no port); reused for up to a second. The same
 * row object is answered while it is reused, so callers may key what they derive from it on it.
 */
export function readPageProgram(deps: Deps, by: { publicId: string } | { host: string }) {
  const db = deps.database.db;
  const key = 'publicId' in by ? `id:${by.publicId}` : `host:${by.host}`;
  return pageProgramCache(deps.database).get(key, async () => {
    const row =
      'publicId' in by
        ? await repository.findProgramByPublicId(db, by.publicId)
        : await repository.findProgramByPortalHost(db, by.host);
    return row ? { ...row, programSettings: programSettingsOf(row.type, row.settings) } : undefined;
  });
}

export async function getProgramOverview(ctx: ProgramContext, links: { baseUrl: string }) {
  const found = await repository.findProgramWithWindowSums(
    ctx.database.db,
    ctx.program.id,
    overviewWindow(dayOf(nowTimestamp(ctx.clock))),
  );
  if (!found) throw new AppError('not_found', 'Program not found.');
  const { row, sums } = found;
  // Counts as numbers; revenue stays exact (bigint micro-units) until it is formatted.
  const current = new Map(sums.map((row) => [row.metric, Number(row.current)]));
  const before = new Map(sums.map((row) => [row.metric, Number(row.before)]));
  const revenueNow = sums.filter((row) => row.metric.startsWith('revenue:') && row.current !== 0n);

  const figure = (name: string, now: number, then: number) => {
    const [before, growthOf] = figureKeys(name);
    return { [name]: now, [before]: then, [growthOf]: growth(now, then) };
  };
  const count = (metric: string, name: string) =>
    figure(name, current.get(metric) ?? 0, before.get(metric) ?? 0);
  const customersNow = current.get(programMetrics.customers) ?? 0;
  const customersBefore = before.get(programMetrics.customers) ?? 0;

  const revenue: Record<string, string> = {};
  for (const { metric, current: micros } of revenueNow) {
    revenue[metric.slice('revenue:'.length)] = formatAmount(micros, metric.slice('revenue:'.length));
  }

  const settings = programSettingsOf(row.type, row.settings);
  return {
    program: {
      id: row.id,
      public_id: row.public_id,
      website: row.website,
      initial: row.name.trim().charAt(0).toUpperCase(),
      type: programTypeLabel[row.type],
      name: row.name,
      created_at: dayOf(row.created_at),
      last_edited: dayOf(row.updated_at),
      // The portal host lives in a column of its own (unique across programs), shown with the settings.
      program_settings: row.type === 'affiliate' ? { ...settings, portal_host: row.portal_host } : settings,
      portal_settings: portalSettingsOf(row.type, row.portal_settings),
    },
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
    overview_program_current_settings: {
      // Only affiliate programs have partners, so only they have a partner portal.
      partner_portal_url:
        row.type === 'affiliate'
          ? partnerPortalUrl(links.baseUrl, row.public_id, row.portal_host, ctx.config.publicUrl)
          : null,
      website_url: row.website,
    },
  };
}

export async function updateProgram(ctx: ProgramContext, body: UpdateProgramBody): Promise<void> {
  const { portal_host: portalHost, ...given } = (body.program_settings ?? {}) as Record<string, unknown> & {
    portal_host?: string | null;
  };
  // Newsletter programs have no currency setting.
  const currency = given && 'currency' in given ? given.currency : undefined;
  const row = await getProgramRowOrThrow(ctx);
  const stored = (text: string) => JSON.parse(text || '{}') as Record<string, unknown>;
  const settings = body.program_settings
    ? {
        ...stored(row.settings),
        ...given,
        ...(typeof currency === 'string' ? { currency: currency.toUpperCase() } : {}),
      }
    : undefined;
  const values = {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(portalHost !== undefined
      ? { portal_host: portalHost === null ? null : portalHost.toLowerCase() }
      : {}),
    ...(body.website !== undefined ? { website: body.website } : {}),
    ...(settings ? { settings: JSON.stringify(settings) } : {}),
    ...(body.portal_settings
      ? { portal_settings: JSON.stringify({ ...stored(row.portal_settings), ...body.portal_settings }) }
      : {}),
    updated_at: nowTimestamp(ctx.clock),
  };
  try {
    await repository.updateProgram(ctx.database.db, ctx.program.id, values);
    pageProgramCaches.get(ctx.database)?.clear();
  } catch (error) {
    if (uniqueViolationColumn(error) === 'portal_host')
      throw fieldError('program_settings.portal_host', 'The portal host is used by another program.');
    throw error;
  }
}

export async function getKeyCheck(ctx: ProgramContext) {
  const row = await getProgramRowOrThrow(ctx);
  return { program: { id: row.id, pub_id: row.public_id, name: row.name, type: programTypeLabel[row.type] } };
}

/**
 * Feeds the program overview. Modules call it inside the transaction of the change that moves a
 * figure (a customer signs up, a sale is recorded, one is deleted) with the day the figure
 * belongs to, so statistics are never computed by scanning history.
 */
export async function recordProgramActivity(
  trx: Kysely<DB>,
  programId: number,
  at: string,
  deltas: Record<string, bigint | number>,
): Promise<void> {
  await addProgramActivity(trx, programId, at, deltas);
}

/** The program's name and website, as invitation e-mails show them. */
export const getProgramNameAndWebsite = (db: Kysely<DB>, programId: number) =>
  repository.findProgramNameAndWebsite(db, programId);

export { programMetrics, revenueMetric };

// Program management for the admin API and the CLI.

type ProgramRow = Omit<ProgramsTable, 'id'> & { id: number };

/** How the admin API and the CLI show a program. */
export function toAdminProgram(row: ProgramRow) {
  return {
    id: row.id,
    public_id: row.public_id,
    name: row.name,
    type: row.type,
    website: row.website,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function createProgram(
  deps: Deps,
  input: { name: string; type: ProgramType; website?: string },
) {
  const now = nowTimestamp(deps.clock);
  const row = await repository.insertProgram(deps.database.db, {
    public_id: newKey(),
    name: input.name,
    type: input.type,
    website: input.website ?? null,
    settings: '{}',
    portal_settings: '{}',
    created_at: now,
    updated_at: now,
  });
  return toAdminProgram(row);
}

/** A program with a fresh full-scope key: what `vouch programs create` prints. */
export async function createProgramWithKey(
  deps: Deps,
  input: { name: string; type: ProgramType; website?: string },
) {
  const program = await createProgram(deps, input);
  const apiKey = await createApiKey(deps, program.id, { name: 'default' });
  return { program, api_key: apiKey };
}

export async function getProgramOrThrow(deps: Deps, id: string) {
  const row = await repository.findProgramByIdOrPublicId(deps.database.db, id);
  if (!row) throw new AppError('not_found', 'Program not found.');
  return toAdminProgram(row);
}

export async function listPrograms(deps: Deps, page: PageRequest) {
  const rows = await repository.listPrograms(deps.database.db, pageWindow(page), page.sort);
  return rows.map(toAdminProgram);
}
