import { type Insertable, type Kysely, sql } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { forUpdate } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import type { LeadSetupsTable, LeadsTable } from './leads.tables.ts';
import './leads.tables.ts';

export type LeadRow = Awaited<ReturnType<typeof findLead>> & {};
export type LeadSetupRow = Awaited<ReturnType<typeof findLeadSetup>> & {};

export async function findLeadSetup(db: Kysely<DB>, programId: number) {
  return db.selectFrom('lead_setups').selectAll().where('program_id', '=', programId).executeTakeFirst();
}

/**
 * The setup row to change, locked for the rest of the transaction (PostgreSQL; SQLite's write
 * lock does the same), created with `defaults` first when the program has none: two edits at once
 * then never hand out the same new field id.
 */
export async function lockLeadSetup(trx: Kysely<DB>, defaults: Insertable<LeadSetupsTable>) {
  await trx
    .insertInto('lead_setups')
    .values(defaults)
    .onConflict((oc) => oc.column('program_id').doNothing())
    .execute();
  const query = trx.selectFrom('lead_setups').selectAll().where('program_id', '=', defaults.program_id);
  return forUpdate(trx, query).executeTakeFirstOrThrow();
}

export async function updateLeadSetup(
  trx: Kysely<DB>,
  programId: number,
  values: Omit<LeadSetupsTable, 'program_id' | 'created_at'>,
) {
  return trx
    .updateTable('lead_setups')
    .set(values)
    .where('program_id', '=', programId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertLead(db: Kysely<DB>, values: Insertable<LeadsTable>) {
  return db.insertInto('leads').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findLead(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('leads')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface LeadListFilter {
  status?: string;
  email?: string;
  partnerId?: number;
}

export async function listLeads(
  db: Kysely<DB>,
  programId: number,
  filter: LeadListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('leads').selectAll().where('program_id', '=', programId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.email !== undefined) query = query.where(sql`lower(email)`, '=', filter.email.toLowerCase());
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

/**
 * Moves a lead to `status` only when it is in one of `from`: the one conditional statement that
 * decides which of two concurrent moves wins. Undefined when the lead is missing or not in `from`.
 */
export async function moveLead(
  trx: Kysely<DB>,
  programId: number,
  id: number,
  from: readonly string[],
  values: { status: string; updated_at: string },
) {
  return trx
    .updateTable('leads')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Records what a conversion created: the customer it became and the sale's key. */
export async function recordConversion(
  trx: Kysely<DB>,
  programId: number,
  id: number,
  values: { converted_to: string; transaction_key: string },
) {
  return trx
    .updateTable('leads')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteLead(db: Kysely<DB>, programId: number, id: number) {
  const result = await db
    .deleteFrom('leads')
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
