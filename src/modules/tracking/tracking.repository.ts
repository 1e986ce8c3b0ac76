import { type Kysely, sql } from 'kysely';
import { definePreparedQuery, defineRowsInsert } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { executeTogether } from '../../db/together.ts';
import type { ClicksTable } from './tracking.tables.ts';

/** A link as the public tracking routes need it: its program, its owner's state, its targets. */
export interface TrackedLinkRow {
  program_id: number;
  program_public_id: string;
  program_type: string;
  website: string | null;
  settings: string;
  link_id: number;
  key: string;
  partner_id: number | null;
  customer_id: number | null;
  redirect_url: string | null;
  partner_status: string | null;
  customer_status: string | null;
  customer_deleted_at: string | null;
}

/** The link with its program and owner; `where` narrows it to a key, or to a key in one program. */
const trackedLinks = (db: Kysely<DB>) =>
  db
    .selectFrom('referral_links as l')
    .innerJoin('programs as p', 'p.id', 'l.program_id')
    .leftJoin('partners as pa', (join) =>
      join.onRef('pa.id', '=', 'l.partner_id').onRef('pa.program_id', '=', 'l.program_id'),
    )
    .leftJoin('customers as c', (join) =>
      join.onRef('c.id', '=', 'l.customer_id').onRef('c.program_id', '=', 'l.program_id'),
    )
    .select([
      'l.program_id as program_id',
      'p.public_id as program_public_id',
      'p.type as program_type',
      'p.website as website',
      'p.settings as settings',
      'l.id as link_id',
      'l.key as key',
      'l.partner_id as partner_id',
      'l.customer_id as customer_id',
      'l.direct_tracking_redirect_url as redirect_url',
      'pa.status as partner_status',
      'c.status as customer_status',
      'c.deleted_at as customer_deleted_at',
    ]);

/** Every program's link with this key (keys are unique per program only); at most two are read. */
const selectLinksByKey = definePreparedQuery<TrackedLinkRow, { key: string }>((db, param) =>
  trackedLinks(db).where('l.key', '=', param('key')).orderBy('l.id').limit(2),
);

export const findLinksByKey = (db: Kysely<DB>, key: string) => selectLinksByKey(db, { key });

const selectLinkInProgram = definePreparedQuery<TrackedLinkRow, { programPublicId: string; key: string }>(
  (db, param) =>
    trackedLinks(db).where('p.public_id', '=', param('programPublicId')).where('l.key', '=', param('key')),
);

export async function findLinkInProgram(db: Kysely<DB>, programPublicId: string, key: string) {
  return (await selectLinkInProgram(db, { programPublicId, key }))[0];
}

const selectProgramByPublicId = definePreparedQuery<
  { id: number; type: string; website: string | null; settings: string },
  { publicId: string }
>((db, param) =>
  db
    .selectFrom('programs')
    .select(['id', 'type', 'website', 'settings'])
    .where('public_id', '=', param('publicId')),
);

export async function findProgramByPublicId(db: Kysely<DB>, publicId: string) {
  return (await selectProgramByPublicId(db, { publicId }))[0];
}

/** The day's salt, created by the first instance that needs it. */
export async function saltOf(db: Kysely<DB>, day: string, fresh: string): Promise<string> {
  await db
    .insertInto('click_salts')
    .values({ day, salt: fresh })
    .onConflict((oc) => oc.column('day').doNothing())
    .execute();
  const row = await db
    .selectFrom('click_salts')
    .select('salt')
    .where('day', '=', day)
    .executeTakeFirstOrThrow();
  return row.salt;
}

/** The day's salt when one was made (yesterday's is only read, never made). */
export async function findSalt(db: Kysely<DB>, day: string): Promise<string | undefined> {
  const row = await db.selectFrom('click_salts').select('salt').where('day', '=', day).executeTakeFirst();
  return row?.salt;
}

/** Salts older than `keepFrom` are dropped: hashes made with them can no longer be linked to anyone. */
export async function dropSaltsBefore(db: Kysely<DB>, keepFrom: string) {
  await db.deleteFrom('click_salts').where('day', '<', keepFrom).execute();
}

type VisitParams = { programId: number; linkId: number; visitor: string; at: string; cutoff: string };

const upsertVisit = definePreparedQuery<{ counted_at: string }, VisitParams>((db, param) =>
  db
    .insertInto('click_visitors')
    .values({
      program_id: param('programId'),
      link_id: param('linkId'),
      visitor: param('visitor'),
      counted_at: param('at'),
    })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'link_id', 'visitor'])
        .doUpdateSet({ counted_at: (eb) => eb.ref('excluded.counted_at') })
        .where('click_visitors.counted_at', '<=', param('cutoff')),
    )
    .returning('counted_at'),
);

/**
 * Records a visitor's click on a link and answers whether it counts: it does when the visitor
 * was not counted on this link since `cutoff` (a row inserted, or an old one renewed).
 */
export async function claimVisit(db: Kysely<DB>, visit: VisitParams): Promise<boolean> {
  return (await upsertVisit(db, visit)).length === 1;
}

const selectCountedSince = definePreparedQuery<{ one: number }, Omit<VisitParams, 'at'>>((db, param) =>
  db
    .selectFrom('click_visitors')
    .select(sql<number>`1`.as('one'))
    .where('program_id', '=', param('programId'))
    .where('link_id', '=', param('linkId'))
    .where('visitor', '=', param('visitor'))
    .where('counted_at', '>', param('cutoff')),
);

/** Whether a visitor (named under yesterday's salt) was counted on a link since `cutoff`. */
export async function countedSince(db: Kysely<DB>, visit: Omit<VisitParams, 'at'>): Promise<boolean> {
  return (await selectCountedSince(db, visit)).length > 0;
}

/** Visitors last counted before `cutoff` no longer decide anything. */
export async function pruneVisitors(db: Kysely<DB>, cutoff: string) {
  await db.deleteFrom('click_visitors').where('counted_at', '<', cutoff).execute();
}

export type NewClick = Omit<ClicksTable, 'id'>;

/** Rows per insert: one prepared statement per size, well under either database's parameter limit. */
const CLICKS_PER_INSERT = 100;

const clickRows = defineRowsInsert<NewClick>('clicks', [
  'program_id',
  'public_id',
  'link_id',
  'owner_kind',
  'owner_id',
  'landing_url',
  'clicked_at',
]);

/** Stores a batch of reported clicks (their ids were answered already), as prepared inserts. */
export async function insertClicks(db: Kysely<DB>, clicks: readonly NewClick[]) {
  const statements = [];
  for (let i = 0; i < clicks.length; i += CLICKS_PER_INSERT)
    statements.push(...clickRows(db, clicks.slice(i, i + CLICKS_PER_INSERT)));
  await executeTogether(db, statements);
}

const selectClick = definePreparedQuery<
  Pick<ClicksTable, 'owner_kind' | 'owner_id' | 'landing_url' | 'clicked_at'>,
  { programId: number; publicId: string }
>((db, param) =>
  db
    .selectFrom('clicks')
    .select(['owner_kind', 'owner_id', 'landing_url', 'clicked_at'])
    .where('program_id', '=', param('programId'))
    .where('public_id', '=', param('publicId')),
);

/** A program's click by its public id (one unique-index lookup). */
export async function findClick(db: Kysely<DB>, programId: number, publicId: string) {
  return (await selectClick(db, { programId, publicId }))[0];
}

/** Clicks older than `cutoff` are dropped: a click id that old no longer tells a rule anything. */
export async function pruneClicks(db: Kysely<DB>, cutoff: string) {
  await db.deleteFrom('clicks').where('clicked_at', '<', cutoff).execute();
}
