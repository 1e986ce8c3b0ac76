import type { Insertable, Kysely } from 'kysely';
import type { DB, ProgramsTable } from '../../db/tables.ts';

export async function insertProgram(db: Kysely<DB>, values: Insertable<ProgramsTable>) {
  return db.insertInto('programs').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProgramByIdOrPublicId(db: Kysely<DB>, id: string) {
  const query = db.selectFrom('programs').selectAll();
  return (
    /^\d+$/.test(id) ? query.where('id', '=', Number(id)) : query.where('public_id', '=', id)
  ).executeTakeFirst();
}

export async function listPrograms(
  db: Kysely<DB>,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  return db
    .selectFrom('programs')
    .selectAll()
    .orderBy('id', sort)
    .limit(window.fetch)
    .offset(window.offset)
    .execute();
}
