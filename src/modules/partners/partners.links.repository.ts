import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';

/** Link domains and link figures of affiliate programs; every query is scoped by the program. */

export async function findDomain(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('link_domains')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listDomains(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('link_domains')
    .selectAll()
    .where('program_id', '=', programId)
    .orderBy('id')
    .execute();
}

export async function deleteLinkCounters(db: Kysely<DB>, programId: number, linkId: number) {
  await db
    .deleteFrom('entity_counters')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', 'link')
    .where('owner_id', '=', linkId)
    .execute();
}
