import type { Insertable, Kysely, Selectable } from 'kysely';
import { lockRows } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import type { FraudFlagsTable } from './fraud.tables.ts';
import './fraud.tables.ts';

/** Fraud flags, the hold they put on customers and commissions, and signups per address. */

export type FraudFlagRow = Selectable<FraudFlagsTable>;

/**
 * Counts one more referred signup of `owner` from `address` on `day` and answers how many there
 * were before it: one upsert on the table's primary key, the only lookup the rules add.
 */
export async function countAddressSignup(
  db: Kysely<DB>,
  programId: number,
  owner: { kind: string; id: number },
  address: string,
  day: string,
): Promise<number> {
  const row = await db
    .insertInto('fraud_address_signups')
    .values({ program_id: programId, owner_kind: owner.kind, owner_id: owner.id, address, day, signups: 1 })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'owner_kind', 'owner_id', 'address', 'day'])
        .doUpdateSet((eb) => ({ signups: eb('fraud_address_signups.signups', '+', 1) })),
    )
    .returning('signups')
    .executeTakeFirstOrThrow();
  return Number(row.signups) - 1;
}

export async function insertFlag(
  db: Kysely<DB>,
  values: Omit<Insertable<FraudFlagsTable>, 'id'>,
): Promise<FraudFlagRow> {
  return db.insertInto('fraud_flags').values(values).returningAll().executeTakeFirstOrThrow();
}

export interface FlagFilter {
  status?: string;
  rule?: string;
  owner?: { kind: string; ref: string };
}

export async function listFlags(
  db: Kysely<DB>,
  programId: number,
  filter: FlagFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
): Promise<FraudFlagRow[]> {
  let query = db.selectFrom('fraud_flags').selectAll().where('program_id', '=', programId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.rule !== undefined) query = query.where('rule', '=', filter.rule);
  if (filter.owner !== undefined)
    query = query.where('owner_kind', '=', filter.owner.kind).where('owner_ref', '=', filter.owner.ref);
  return query.orderBy('id', sort).offset(window.offset).limit(window.fetch).execute();
}

export async function findFlagByPublicId(
  db: Kysely<DB>,
  programId: number,
  publicId: string,
): Promise<FraudFlagRow | undefined> {
  return db
    .selectFrom('fraud_flags')
    .selectAll()
    .where('program_id', '=', programId)
    .where('public_id', '=', publicId)
    .executeTakeFirst();
}

/** The flag, locked until the caller's transaction ends (PostgreSQL): one review at a time. */
export async function lockFlag(
  db: Kysely<DB>,
  programId: number,
  id: number,
): Promise<FraudFlagRow | undefined> {
  const select = db
    .selectFrom('fraud_flags')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id);
  await lockRows(db, select);
  return select.executeTakeFirst();
}

export async function resolveFlag(
  db: Kysely<DB>,
  programId: number,
  id: number,
  status: 'cleared' | 'confirmed',
  now: string,
): Promise<void> {
  await db
    .updateTable('fraud_flags')
    .set({ status, updated_at: now, resolved_at: now })
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

/** Another open flag on the same subject, which takes over the hold when this one is resolved. */
export async function findOtherOpenFlag(
  db: Kysely<DB>,
  programId: number,
  flag: FraudFlagRow,
): Promise<FraudFlagRow | undefined> {
  return db
    .selectFrom('fraud_flags')
    .selectAll()
    .where('program_id', '=', programId)
    .where('subject_kind', '=', flag.subject_kind)
    .where('subject_id', '=', flag.subject_id)
    .where('status', '=', 'open')
    .where('id', '!=', flag.id)
    .orderBy('id')
    .executeTakeFirst();
}
