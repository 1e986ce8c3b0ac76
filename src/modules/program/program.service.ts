import type { Kysely } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { brandingProblems } from '../../core/branding.ts';
import { lacksDurationCount } from '../../core/commissions.ts';
import { AppError, fieldError, validationError } from '../../core/errors.ts';
import { newKey } from '../../core/ids.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { programSettingsOf } from '../../core/program-settings.ts';
import { programMetrics, revenueMetric } from '../../core/program-stats.ts';
import { type ProgramType, programTypeLabel } from '../../core/program-types.ts';
import { isTimeZone } from '../../core/report-buckets.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { millisOn, nowTimestamp } from '../../core/time.ts';
import type { DB, ProgramsTable } from '../../db/tables.ts';
import { createApiKey } from '../api-keys/api-keys.service.ts';
import { addProgramActivity } from '../counters/counters.figures.repository.ts';
import * as repository from './program.repository.ts';
import type { UpdateProgramBody } from './program.schemas.ts';

export type { UpdateProgramBody };

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
    const last = page.at(-1);
    if (page.length < 500 || last === undefined) return;
    after = Number(last.id);
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

export { partnerPortalUrl } from '../../core/portal-url.ts';

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

function pageProgramCache({ database, clock }: Pick<Deps, 'database' | 'clock'>) {
  let cache = pageProgramCaches.get(database);
  if (!cache) {
    cache = new ShortCache({ ttlMs: PAGE_PROGRAM_CACHE_MS, capacity: 10_000, now: millisOn(clock) });
    pageProgramCaches.set(database, cache);
  }
  return cache;
}

/**
 * A program as the portal pages find it: by its public id (`/p/{id}`) or by the host name a
 * request came to (its `portal_host`, lower case, no port); reused for up to a second. The same
 * row object is answered while it is reused, so callers may key what they derive from it on it.
 */
export function readPageProgram(deps: Deps, by: { publicId: string } | { host: string }) {
  const db = deps.database.db;
  const key = 'publicId' in by ? `id:${by.publicId}` : `host:${by.host}`;
  return pageProgramCache(deps).get(key, async () => {
    const row =
      'publicId' in by
        ? await repository.findProgramByPublicId(db, by.publicId)
        : await repository.findProgramByPortalHost(db, by.host);
    return row ? { ...row, programSettings: programSettingsOf(row.type, row.settings) } : undefined;
  });
}

/** Forgets the programs the pages reuse: a change is seen by the next page of this process. */
export function forgetPagePrograms(database: Deps['database']) {
  pageProgramCaches.get(database)?.clear();
}

function refuseCountlessDuration(commission: unknown) {
  if (lacksDurationCount(commission))
    throw fieldError('program_settings.commission.duration_value', 'required');
}

export async function updateProgram(ctx: ProgramContext, body: UpdateProgramBody): Promise<void> {
  const { portal_host: portalHost, ...given } = (body.program_settings ?? {}) as Record<string, unknown> & {
    portal_host?: string | null;
  };
  refuseCountlessDuration(given.commission);
  const branding = brandingProblems(given);
  if (branding.length > 0) throw validationError(branding);
  // Newsletter programs have no currency setting.
  const currency = given && 'currency' in given ? given.currency : undefined;
  if (typeof given.timezone === 'string' && !isTimeZone(given.timezone))
    throw fieldError(
      'program_settings.timezone',
      'refused',
      'The timezone must be an IANA time zone name, such as Europe/Berlin.',
    );
  const row = await getProgramRowOrThrow(ctx);
  const stored = (text: string) => JSON.parse(text || '{}') as Record<string, unknown>;
  const settings = body.program_settings
    ? {
        ...stored(row.settings),
        ...given,
        ...fraudRulesMerged(stored(row.settings), given),
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
  const written = await repository.updateProgramUnlessHostTaken(ctx.database.db, ctx.program.id, values);
  if (!written)
    throw fieldError(
      'program_settings.portal_host',
      'refused',
      'The portal host is used by another program.',
    );
  forgetPagePrograms(ctx.database);
}

/** A PUT names the fraud rules it changes; the stored others stay. */
function fraudRulesMerged(stored: Record<string, unknown>, given: Record<string, unknown>) {
  if (given.fraud_rules === undefined) return {};
  return { fraud_rules: { ...(stored.fraud_rules as object | undefined), ...(given.fraud_rules as object) } };
}

export async function getKeyCheck(ctx: ProgramContext) {
  const row = await getProgramRowOrThrow(ctx);
  return {
    program: { id: row.id, pub_id: row.public_id, name: row.name, type: programTypeLabel[row.type] },
    key: { scope: ctx.program.scope },
  };
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

/** `GET /v1/program`'s overview, for the owner console too. */
export { getProgramOverview } from './program.overview.ts';
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
