import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { joinCounterParts } from '../../db/counter-parts.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB, ProgramsTable } from '../../db/tables.ts';
import './program.tables.ts';

const selectProgram = definePreparedQuery<Selectable<ProgramsTable>, { programId: number }>((db, param) =>
  db.selectFrom('programs').selectAll().where('id', '=', param('programId')),
);

export async function findProgram(db: Kysely<DB>, programId: number) {
  return (await selectProgram(db, { programId }))[0];
}

const selectProgramByPublicId = definePreparedQuery<Selectable<ProgramsTable>, { publicId: string }>(
  (db, param) => db.selectFrom('programs').selectAll().where('public_id', '=', param('publicId')),
);

/** A program by its public id, as the public pages name it (never by its internal id). */
export async function findProgramByPublicId(db: Kysely<DB>, publicId: string) {
  return (await selectProgramByPublicId(db, { publicId }))[0];
}

const selectProgramByPortalHost = definePreparedQuery<Selectable<ProgramsTable>, { host: string }>(
  (db, param) => db.selectFrom('programs').selectAll().where('portal_host', '=', param('host')),
);

/** The program whose partner portal has this host name (index programs_portal_host). */
export async function findProgramByPortalHost(db: Kysely<DB>, host: string) {
  return (await selectProgramByPortalHost(db, { host }))[0];
}

/** What an invitation e-mail says about the program. */
export async function findProgramNameAndWebsite(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('programs')
    .select(['name', 'website'])
    .where('id', '=', programId)
    .executeTakeFirstOrThrow();
}

export async function updateProgram(db: Kysely<DB>, programId: number, values: Updateable<ProgramsTable>) {
  await db.updateTable('programs').set(values).where('id', '=', programId).execute();
}

/**
 * Changes the program unless its new portal host is another program's: checked first, so the
 * usual refusal raises nothing in the database (ADR 0053). False when taken.
 */
export async function updateProgramUnlessHostTaken(
  db: Kysely<DB>,
  programId: number,
  values: Updateable<ProgramsTable>,
): Promise<boolean> {
  if (typeof values.portal_host === 'string') {
    const holder = await findProgramByPortalHost(db, values.portal_host);
    if (holder && holder.id !== programId) return false;
  }
  await updateProgram(db, programId, values);
  return true;
}

/**
 * Each metric's sums over the current window and the one before, added up by the database: a
 * busy program has a row per metric and day, and summing in SQL returns a handful of rows
 * instead of every day of sixty (index program_counters_by_day). The two parts of each figure
 * (db/counter-parts.ts) are summed apart and joined exactly in `findProgramWithWindowSums`.
 */
type WindowParams = { programId: number; beforeFrom: string; currentFrom: string; today: string };

/** The current window is `[currentFrom, today]`, the one before `[beforeFrom, currentFrom)`. */
const windowSum = (
  param: ParamOf<WindowParams>,
  part: 'value' | 'value_hi',
  window: 'current' | 'before',
) => {
  const inWindow =
    window === 'current'
      ? sql`day >= ${param('currentFrom')} and day <= ${param('today')}`
      : sql`day >= ${param('beforeFrom')} and day < ${param('currentFrom')}`;
  return sql<number | bigint>`cast(sum(case when ${inWindow} then ${sql.ref(part)} else 0 end) as bigint)`;
};

type WindowSumRow = {
  metric: string;
  current: number | bigint;
  current_hi: number | bigint;
  before: number | bigint;
  before_hi: number | bigint;
};

/** Each metric's window sums of one program, as a subquery. */
const windowSums = (db: Kysely<DB>, param: ParamOf<WindowParams>) =>
  db
    .selectFrom('program_counters')
    .select([
      'metric',
      windowSum(param, 'value', 'current').as('current'),
      windowSum(param, 'value_hi', 'current').as('current_hi'),
      windowSum(param, 'value', 'before').as('before'),
      windowSum(param, 'value_hi', 'before').as('before_hi'),
    ])
    .where('program_id', '=', param('programId'))
    .where('day', '>=', param('beforeFrom'))
    .where('day', '<=', param('today'))
    .groupBy('metric');

/** The program's row on each of its metrics' rows (once, with nulls, when it has none yet). */
const selectProgramWithWindowSums = definePreparedQuery<
  Selectable<ProgramsTable> & { [K in keyof WindowSumRow]: WindowSumRow[K] | null },
  WindowParams
>((db, param) =>
  db
    .selectFrom('programs')
    .leftJoin(windowSums(db, param).as('sums'), (join) => join.onTrue())
    .selectAll('programs')
    .select(['sums.metric', 'sums.current', 'sums.current_hi', 'sums.before', 'sums.before_hi'])
    .where('programs.id', '=', param('programId')),
);

/**
 * The program with its metrics' sums over the current window and the one before, in one
 * statement (one round trip on PostgreSQL); undefined when there is no such program.
 */
export async function findProgramWithWindowSums(
  db: Kysely<DB>,
  programId: number,
  window: { beforeFrom: string; currentFrom: string; today: string },
) {
  const rows = await selectProgramWithWindowSums(db, { programId, ...window });
  const [first] = rows;
  if (!first) return undefined;
  const { metric: _m, current: _c, current_hi: _ch, before: _b, before_hi: _bh, ...row } = first;
  const sums = rows.flatMap((sum) =>
    sum.metric === null
      ? []
      : [
          {
            metric: sum.metric,
            current: joinCounterParts(sum.current ?? 0, sum.current_hi ?? 0),
            before: joinCounterParts(sum.before ?? 0, sum.before_hi ?? 0),
          },
        ],
  );
  return { row, sums };
}

/**
 * The upsert's parameters for `n` metrics: metric `i` has `metric${i}` and its split delta
 * `value${i}`, `valueHi${i}` (i < n).
 */
// Program management for the admin API and the CLI.

export async function insertProgram(db: Kysely<DB>, values: Insertable<ProgramsTable>) {
  return db.insertInto('programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProgramByIdOrPublicId(db: Kysely<DB>, id: string) {
  const query = db.selectFrom('programs').selectAll();
  return (
    /^\d{1,15}$/.test(id) ? query.where('id', '=', Number(id)) : query.where('public_id', '=', id)
  ).executeTakeFirst();
}

export async function listPrograms(
  db: Kysely<DB>,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  return db.selectFrom('programs').selectAll().$call(pageInCreationOrder(sort, window)).execute();
}

/** Programs of one type with their settings, by id after `after` (a background step walks them all). */
export async function listProgramsOfType(
  db: Kysely<DB>,
  type: ProgramsTable['type'],
  after: number,
  limit: number,
) {
  return db
    .selectFrom('programs')
    .select(['id', 'public_id', 'settings'])
    .where('type', '=', type)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Stores a program's logo (replacing any) and its digest on the program row, in one transaction. */
export async function saveLogo(
  db: Kysely<DB>,
  programId: number,
  logo: { digest: string; content_type: string; size: number; body: Buffer; updated_at: string },
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('program_logos')
      .values({ program_id: programId, ...logo })
      .onConflict((c) =>
        c.column('program_id').doUpdateSet({
          digest: logo.digest,
          content_type: logo.content_type,
          size: logo.size,
          body: logo.body,
          updated_at: logo.updated_at,
        }),
      )
      .execute();
    await trx
      .updateTable('programs')
      .set({ logo_digest: logo.digest, updated_at: logo.updated_at })
      .where('id', '=', programId)
      .execute();
  });
}

/** Removes a program's logo; false when it had none. */
export async function deleteLogo(db: Kysely<DB>, programId: number, at: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('program_logos')
      .where('program_id', '=', programId)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) return false;
    await trx
      .updateTable('programs')
      .set({ logo_digest: null, updated_at: at })
      .where('id', '=', programId)
      .execute();
    return true;
  });
}

/** A program's logo by the program's public id (its served URL), with the file. */
export async function findLogoByPublicId(db: Kysely<DB>, publicId: string) {
  return db
    .selectFrom('program_logos')
    .innerJoin('programs', 'programs.id', 'program_logos.program_id')
    .select(['program_logos.digest', 'program_logos.content_type', 'program_logos.body'])
    .where('programs.public_id', '=', publicId)
    .executeTakeFirst();
}

/** The uploaded logo's description (no file), for `GET /v1/program`. */
export async function findLogoInfo(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('program_logos')
    .select(['digest', 'content_type', 'size', 'updated_at'])
    .where('program_id', '=', programId)
    .executeTakeFirst();
}
