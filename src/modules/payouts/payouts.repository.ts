import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { isPostgres } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { PayoutItemsTable, PayoutsTable } from '../../db/domain-tables.ts';
import { forUpdate } from '../../db/locks.ts';
import { definePreparedArrayQuery, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/** Payout batches and their items; every query is scoped by the program. */

export type PayoutRow = Selectable<PayoutsTable>;
export type PayoutItemRow = Selectable<PayoutItemsTable>;

// Any constant: the first half of the advisory lock that serializes one program's payout creation.
const PAYOUT_LOCK = 72_150_016;

/** One payout of a program is made at a time (until the transaction ends); SQLite's writer is one already. */
export async function lockProgramPayouts(db: Kysely<DB>, programId: number) {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(${sql.lit(PAYOUT_LOCK)}, ${programId}::int)`.execute(db);
}

export async function insertPayout(db: Kysely<DB>, values: Insertable<PayoutsTable>) {
  return db.insertInto('payouts').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * The items of a payout whose commissions were just claimed: one per partner, its net amount and
 * commission count, its payout details, id, e-mail and name as they are now (the export pays
 * there), in partner order. One INSERT … SELECT: nothing travels through the process.
 */
export async function insertItemsOfClaimedCommissions(db: Kysely<DB>, programId: number, payoutId: number) {
  const nets = db
    .selectFrom('rewards')
    .select((eb) => [
      'rewards.partner_id',
      eb.fn.sum<string>('rewards.amount').as('amount'),
      eb.fn.countAll<string>().as('commission_count'),
    ])
    .where('rewards.program_id', '=', programId)
    .where('rewards.payout_id', '=', payoutId)
    .groupBy('rewards.partner_id')
    .as('nets');
  await db
    .insertInto('payout_items')
    .columns([
      'program_id',
      'payout_id',
      'partner_id',
      'amount',
      'commission_count',
      'payout_method',
      'payout_details',
      'partner_public_id',
      'partner_email',
      'partner_name',
      'partner_surname',
    ])
    .expression(
      db
        .selectFrom(nets)
        .innerJoin('partners', 'partners.id', 'nets.partner_id')
        .select((eb) => [
          sql.lit(programId).as('program_id'),
          sql.lit(payoutId).as('payout_id'),
          'nets.partner_id',
          sql<string>`cast(${sql.ref('nets.amount')} as bigint)`.as('amount'),
          sql<number>`cast(${sql.ref('nets.commission_count')} as integer)`.as('commission_count'),
          'partners.payout_method',
          eb.fn.coalesce('partners.payout_details', sql.lit('{}')).as('payout_details'),
          'partners.public_id',
          'partners.email',
          'partners.name',
          'partners.surname',
        ])
        .where('partners.program_id', '=', programId)
        .orderBy('nets.partner_id'),
    )
    .execute();
}

/** Partners of a payout whose net amount is not paid (zero or less, or under the minimum): core/payouts.ts `paysNet`. */
export function unpaidPartnersOf(db: Kysely<DB>, programId: number, payoutId: number, minimumMicros: bigint) {
  return db
    .selectFrom('payout_items')
    .select('partner_id')
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId)
    .where((eb) => eb.or([eb('amount', '<=', 0n), eb('amount', '<', minimumMicros)]));
}

export async function deleteUnpaidItems(
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  minimumMicros: bigint,
) {
  await db
    .deleteFrom('payout_items')
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId)
    .where((eb) => eb.or([eb('amount', '<=', 0n), eb('amount', '<', minimumMicros)]))
    .execute();
}

/** A payout's total and partner count, from its items. */
export async function sumPayoutItems(db: Kysely<DB>, programId: number, payoutId: number) {
  const row = await db
    .selectFrom('payout_items')
    .select((eb) => [eb.fn.sum<string | null>('amount').as('total'), eb.fn.countAll<string>().as('partners')])
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId)
    .executeTakeFirstOrThrow();
  return { total: BigInt(row.total ?? 0), partners: Number(row.partners) };
}

export async function findPayoutByPublicId(
  db: Kysely<DB>,
  programId: number,
  publicId: string,
  lock = false,
) {
  const query = db
    .selectFrom('payouts')
    .selectAll()
    .where('program_id', '=', programId)
    .where('public_id', '=', publicId);
  return (lock ? forUpdate(db, query) : query).executeTakeFirst();
}

export async function updatePayout(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: {
    status?: string;
    paid_at?: string;
    cancelled_at?: string;
    total?: bigint;
    partner_count?: number;
  },
) {
  await db
    .updateTable('payouts')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

export async function listPayouts(
  db: Kysely<DB>,
  programId: number,
  filter: { status?: string },
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('payouts').selectAll().where('program_id', '=', programId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

const selectNamedPayoutItems = definePreparedQuery<
  NamedPayoutItemRow,
  { programId: number; payoutId: number; after: number; limit: number }
>((db, param) =>
  db
    .selectFrom('payout_items')
    .leftJoin('partners', 'partners.id', 'payout_items.partner_id')
    .select([
      'payout_items.id',
      'payout_items.amount',
      'payout_items.commission_count',
      'payout_items.payout_method',
      'payout_items.payout_details',
      'partners.public_id as partner_public_id',
      'partners.email as partner_email',
      'partners.name as partner_name',
      'partners.surname as partner_surname',
    ])
    .where('payout_items.program_id', '=', param('programId'))
    .where('payout_items.payout_id', '=', param('payoutId'))
    .where('payout_items.id', '>', param('after'))
    .orderBy('payout_items.id')
    .limit(param('limit')),
);

/**
 * A page of a payout's items with their partners' names as they are now, `after` an item id: one
 * keyset-paged join, compiled once.
 */
export async function listNamedPayoutItems(
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  page: { after: number; limit: number },
) {
  return selectNamedPayoutItems(db, { programId, payoutId, ...page });
}

// A deleted partner's item keeps no name (its partner id is set null): the export shows none.
const kept = (column: 'partner_public_id' | 'partner_email' | 'partner_name' | 'partner_surname') =>
  sql<string | null>`case when ${sql.ref('partner_id')} is null then null else ${sql.ref(column)} end`.as(
    column,
  );

/**
 * An item as its export reads it, a tuple in this order: exports read thousands of items, and
 * rows as arrays cost a fraction of rows as objects (db/prepared.ts). The PayPal file needs only
 * the first six columns, so it reads only those (each value read costs about as much as a field
 * written).
 */
export type PayPalItemRow = [
  id: number,
  amount: number | bigint,
  commissionCount: number,
  payoutDetails: string,
  partnerEmail: string | null,
  partnerPublicId: string | null,
];
export type ExportItemRow = [
  ...PayPalItemRow,
  payoutMethod: string | null,
  partnerName: string | null,
  partnerSurname: string | null,
];

const exportColumns = [
  'id',
  'amount',
  'commission_count',
  'payout_details',
  kept('partner_email'),
  kept('partner_public_id'),
  'payout_method',
  kept('partner_name'),
  kept('partner_surname'),
] as const;

type ExportPage = { programId: number; payoutId: number; after: number; limit: number };

/** One compiled keyset-paged statement of a payout's items, reading the first `width` export columns. */
const selectExportColumns = <Row extends readonly unknown[]>(width: number) =>
  definePreparedArrayQuery<Row, ExportPage>((db, param) =>
    db
      .selectFrom('payout_items')
      .select(exportColumns.slice(0, width) as unknown as (typeof exportColumns)[number][])
      .where('program_id', '=', param('programId'))
      .where('payout_id', '=', param('payoutId'))
      .where('id', '>', param('after'))
      .orderBy('id')
      .limit(param('limit')),
  );
const selectExportItems = selectExportColumns<ExportItemRow>(exportColumns.length);
const selectPayPalItems = selectExportColumns<PayPalItemRow>(6);

/**
 * A page of a payout's items as its export writes them, `after` an item id: the items alone,
 * with the names they kept when the payout was made (migration 0021), as arrays.
 */
export async function listExportItems(db: Kysely<DB>, programId: number, payoutId: number, page: Page) {
  return selectExportItems(db, { programId, payoutId, ...page });
}

/** `listExportItems` with the columns of a PayPal file only. */
export async function listPayPalExportItems(db: Kysely<DB>, programId: number, payoutId: number, page: Page) {
  return selectPayPalItems(db, { programId, payoutId, ...page });
}

type Page = { after: number; limit: number };

export interface NamedPayoutItemRow {
  id: number;
  amount: number | bigint;
  commission_count: number;
  payout_method: string | null;
  payout_details: string;
  partner_public_id: string | null;
  partner_email: string | null;
  partner_name: string | null;
  partner_surname: string | null;
}

const selectPayoutsOfPartner = definePreparedQuery<
  {
    public_id: string;
    status: string;
    currency: string;
    created_at: string;
    paid_at: string | null;
    amount: number | bigint;
  },
  { programId: number; partnerId: number; limit: number }
>((db, param) =>
  db
    .selectFrom('payout_items')
    .innerJoin('payouts', 'payouts.id', 'payout_items.payout_id')
    .select([
      'payouts.public_id',
      'payouts.status',
      'payouts.currency',
      'payouts.created_at',
      'payouts.paid_at',
      'payout_items.amount',
    ])
    .where('payout_items.program_id', '=', param('programId'))
    .where('payout_items.partner_id', '=', param('partnerId'))
    .orderBy('payout_items.payout_id', 'desc')
    .limit(param('limit')),
);

/** A partner's latest payouts, newest first: its items with their payouts (index payout_items_partner). */
export function listPayoutsOfPartner(db: Kysely<DB>, programId: number, partnerId: number, limit: number) {
  return selectPayoutsOfPartner(db, { programId, partnerId, limit });
}

/** A partner's items in payouts that are still pending (a partner delete takes them out). */
export async function listPendingItemsOfPartner(db: Kysely<DB>, programId: number, partnerId: number) {
  return db
    .selectFrom('payout_items')
    .innerJoin('payouts', 'payouts.id', 'payout_items.payout_id')
    .select(['payout_items.id', 'payout_items.payout_id', 'payout_items.amount'])
    .where('payout_items.program_id', '=', programId)
    .where('payout_items.partner_id', '=', partnerId)
    .where('payouts.status', '=', 'pending')
    .execute();
}

/**
 * Takes one item out of a pending payout: its amount leaves the total, the partner the count, and
 * a payout left with no item is cancelled. Conditional on the payout still being pending (a
 * concurrent mark-paid wins, and the item then stays); answers whether it was taken out.
 */
export async function removePendingItem(
  db: Kysely<DB>,
  programId: number,
  item: { id: number; payout_id: number; amount: bigint },
  now: string,
) {
  const updated = await db
    .updateTable('payouts')
    .set((eb) => ({
      total: eb('total', '-', item.amount),
      partner_count: eb('partner_count', '-', 1),
      status: eb.case().when('partner_count', '=', 1).then('cancelled').else(eb.ref('status')).end(),
      cancelled_at: eb.case().when('partner_count', '=', 1).then(now).else(eb.ref('cancelled_at')).end(),
    }))
    .where('program_id', '=', programId)
    .where('id', '=', item.payout_id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await db.deleteFrom('payout_items').where('program_id', '=', programId).where('id', '=', item.id).execute();
  return true;
}
