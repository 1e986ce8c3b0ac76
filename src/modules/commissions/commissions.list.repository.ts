/** The commission list: its filters, its statement per shape, and deep pages started from a remembered row. */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { RewardsTable } from '../../db/domain-tables.ts';
import { PageStarts } from '../../db/page-starts.ts';
import { definePreparedArrayQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/** A commission row (the `rewards` of an affiliate program, manual commissions and clawbacks). */
export type CommissionRow = Selectable<RewardsTable>;

// A literal, not a parameter: the planners use the partial `rewards_due` index only when the
// query's condition visibly implies the index's `status = 'review_period'`.
export const IN_REVIEW = sql<string>`'review_period'`;

export interface CommissionListFilter {
  partnerId?: number;
  /** A shown status: `pending` and `approved` are split by the hold's end when `autoApprove`. */
  status?: { stored: string; dueSplit?: { now: string; autoApprove: boolean } };
  transactionId?: number;
  currency?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** The columns of a commission the wire shows (ids of other rows are shown by their public names). */
export const SHOWN_COLUMNS = [
  'rewards.id',
  'rewards.role',
  'rewards.status',
  'rewards.amount',
  'rewards.amount_units',
  'rewards.available_at',
  'rewards.approved_at',
  'rewards.paid_at',
  'rewards.reason',
  'rewards.description',
  'rewards.created_at',
  'rewards.updated_at',
] as const;

/** A commission row as the wire shows it, with the public names read in the same statement. */
export type NamedCommissionRow = Pick<
  CommissionRow,
  | 'id'
  | 'role'
  | 'status'
  | 'amount'
  | 'amount_units'
  | 'available_at'
  | 'approved_at'
  | 'paid_at'
  | 'reason'
  | 'description'
  | 'created_at'
  | 'updated_at'
> & {
  partner_public_id: string | null;
  transaction_key: string | null;
  customer_key: string | null;
  payout_public_id: string | null;
  fraud_flag: string | null;
};

/**
 * A listed commission as the list statement answers it: an array of its columns in select order
 * (`SHOWN_COLUMNS`, then the four names), made into a `NamedCommissionRow` by `namedRowOf`. The
 * drivers make arrays at a fraction of the cost of objects, and a literal costs little.
 */
export type NamedCommissionTuple = [
  id: number,
  role: string,
  status: string,
  amount: number | bigint,
  amount_units: string,
  available_at: string | null,
  approved_at: string | null,
  paid_at: string | null,
  reason: string | null,
  description: string | null,
  created_at: string,
  updated_at: string | null,
  partner_public_id: string | null,
  transaction_key: string | null,
  customer_key: string | null,
  payout_public_id: string | null,
  fraud_flag: string | null,
];

export function namedRowOf(row: NamedCommissionTuple): NamedCommissionRow {
  return {
    id: row[0],
    role: row[1],
    status: row[2],
    amount: row[3],
    amount_units: row[4],
    available_at: row[5],
    approved_at: row[6],
    paid_at: row[7],
    reason: row[8],
    description: row[9],
    created_at: row[10],
    updated_at: row[11],
    partner_public_id: row[12],
    transaction_key: row[13],
    customer_key: row[14],
    payout_public_id: row[15],
    fraud_flag: row[16],
  };
}

export interface ListParams {
  programId: number;
  partnerId: number;
  status: string;
  now: string;
  transactionId: number;
  currency: string;
  createdFrom: string;
  createdTo: string;
  fetch: number;
  offset: number;
  /** From a remembered page start (`from: 'key'`): its sort key, the page starting there or after. */
  fromCreatedAt: string;
  fromId: number;
}

/**
 * The list statement of one filter shape (which filters, which status split, which order), its
 * page found by an offset from the start (`from: 'offset'`) or from a remembered row (`'key'`).
 */
export function buildListQuery(filter: CommissionListFilter, sort: 'asc' | 'desc', from: 'offset' | 'key') {
  return definePreparedArrayQuery<NamedCommissionTuple, ListParams>((db, param) => {
    // Every reward of an affiliate program has a partner: no condition on it, so a page walks
    // the (program_id, …, created_at, id) index alone.
    let ids = db.selectFrom('rewards').select('id').where('program_id', '=', param('programId'));
    if (filter.partnerId !== undefined) ids = ids.where('partner_id', '=', param('partnerId'));
    const status = filter.status;
    if (status !== undefined) {
      const split = status.dueSplit;
      if (split === undefined || !split.autoApprove) ids = ids.where('status', '=', param('status'));
      else if (status.stored === 'review_period')
        // Pending: in review and still in its hold (a due one shows approved).
        ids = ids
          .where('status', '=', IN_REVIEW)
          .where((eb) => eb.or([eb('available_at', 'is', null), eb('available_at', '>', param('now'))]));
      else
        ids = ids.where((eb) =>
          eb.or([
            eb('status', '=', param('status')),
            eb.and([eb('status', '=', IN_REVIEW), eb('available_at', '<=', param('now'))]),
          ]),
        );
    }
    if (filter.transactionId !== undefined) ids = ids.where('transaction_id', '=', param('transactionId'));
    if (filter.currency !== undefined) ids = ids.where('amount_units', '=', param('currency'));
    if (filter.createdFrom !== undefined) ids = ids.where('created_at', '>=', param('createdFrom'));
    if (filter.createdTo !== undefined) ids = ids.where('created_at', '<=', param('createdTo'));
    if (from === 'key')
      ids = ids.where((eb) =>
        eb(
          eb.refTuple('created_at', 'id'),
          sort === 'desc' ? '<=' : '>=',
          eb.tuple(param('fromCreatedAt'), param('fromId')),
        ),
      );
    const page = ids
      .orderBy('created_at', sort)
      .orderBy('id', sort)
      .limit(param('fetch'))
      .offset(param('offset'));
    return (
      namedCommissions(db)
        // `+program_id`: still scoped, but the planners look the page's ids up instead of walking the
        // program's index (SQLite did, checking every row against the list).
        .where(sql<number>`+${sql.ref('rewards.program_id')}`, '=', param('programId'))
        // In no order: the page's few rows are put in order by `inListOrder` (the planners sorted
        // them apart, as a statement's last step, for more than it costs here).
        .where('rewards.id', 'in', page)
    );
  });
}

/** One compiled statement per filter shape: a shape is compiled once, then only bound and run. */
export const listQueries = new Map<string, ReturnType<typeof buildListQuery>>();

export function listQueryOf(
  shape: string,
  filter: CommissionListFilter,
  sort: 'asc' | 'desc',
  from: 'offset' | 'key',
) {
  const key = from + shape;
  let query = listQueries.get(key);
  if (!query) {
    query = buildListQuery(filter, sort, from);
    listQueries.set(key, query);
  }
  return query;
}

/** Which filters a list has, which status split, which order: one letter each. */
export function listShape(filter: CommissionListFilter, sort: 'asc' | 'desc') {
  const split = filter.status?.dueSplit;
  const status =
    filter.status === undefined
      ? '-'
      : split === undefined || !split.autoApprove
        ? 's'
        : filter.status.stored === 'review_period'
          ? 'p'
          : 'a';
  const has = (value: unknown) => (value === undefined ? '-' : '+');
  return `${sort === 'asc' ? 'a' : 'd'}${has(filter.partnerId)}${status}${has(filter.transactionId)}${has(filter.currency)}${has(filter.createdFrom)}${has(filter.createdTo)}`;
}

/** Creation order (`created_at`, then `id`), newest or oldest first, as the list's index has it. */
export const inListOrder = {
  desc: (a: NamedCommissionTuple, b: NamedCommissionTuple) =>
    a[10] < b[10] ? 1 : a[10] > b[10] ? -1 : b[0] - a[0],
  asc: (a: NamedCommissionTuple, b: NamedCommissionTuple) =>
    a[10] < b[10] ? -1 : a[10] > b[10] ? 1 : a[0] - b[0],
};

// Pages from this many rows in start from a remembered row when one is near (db/page-starts.ts);
// the first pages, where people look, are always counted from the start.
export const DEEP_OFFSET = 1000;

/** Where deep pages of each list started lately, per database (program ids repeat across databases). */
export const pageStartsOf = new WeakMap<Kysely<DB>, PageStarts<[createdAt: string, id: number]>>();

export function pageStarts(db: Kysely<DB>) {
  let starts = pageStartsOf.get(db);
  if (!starts) {
    starts = new PageStarts({ ttlMs: 1000, lists: 1000, perList: 64, reach: 1000 });
    pageStartsOf.set(db, starts);
  }
  return starts;
}

/**
 * A page of an affiliate program's commissions, in creation order, with their names. The page's
 * ids are found first on a covering index (program and filter, then `created_at, id`), so a deep
 * page skips index entries, not rows; only the page's rows are read and joined, and only the
 * columns the wire shows. Each filter shape is compiled once (db/prepared.ts). A deep page
 * starts from the row a recent page of the same list found at or shortly before its offset, when
 * there is one (the same page again, the next one, another page size): a seek on the index
 * instead of skipping every entry before it.
 */
export async function listCommissions(
  db: Kysely<DB>,
  programId: number,
  filter: CommissionListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
): Promise<NamedCommissionRow[]> {
  const shape = listShape(filter, sort);
  const deep = window.offset + window.fetch > DEEP_OFFSET;
  // `now` is left out: a start stays where it was while holds end (for at most the starts' lifetime).
  const list = deep
    ? [
        programId,
        shape,
        filter.partnerId,
        filter.status?.stored,
        filter.transactionId,
        filter.currency,
        filter.createdFrom,
        filter.createdTo,
      ].join(' ')
    : '';
  const start = window.offset >= DEEP_OFFSET ? pageStarts(db).find(list, window.offset) : undefined;
  const tuples = await listQueryOf(
    shape,
    filter,
    sort,
    start ? 'key' : 'offset',
  )(db, {
    programId,
    partnerId: filter.partnerId ?? 0,
    status: filter.status?.stored ?? '',
    now: filter.status?.dueSplit?.now ?? '',
    transactionId: filter.transactionId ?? 0,
    currency: filter.currency ?? '',
    createdFrom: filter.createdFrom ?? '',
    createdTo: filter.createdTo ?? '',
    fetch: window.fetch,
    offset: start ? window.offset - start.offset : window.offset,
    fromCreatedAt: start?.key[0] ?? '',
    fromId: start?.key[1] ?? 0,
  });
  const rows = tuples.sort(inListOrder[sort]).map(namedRowOf);
  if (deep) {
    // This page's first row, and the row after it (the next page's first).
    const starts = pageStarts(db);
    const first = rows[0];
    if (first && window.offset >= DEEP_OFFSET)
      starts.remember(list, window.offset, [first.created_at, Number(first.id)]);
    const next = rows[window.fetch - 1];
    if (next && window.fetch > 1)
      starts.remember(list, window.offset + window.fetch - 1, [next.created_at, Number(next.id)]);
  }
  return rows;
}

/** Commission rows with the public names the wire shows (partner, sale, buyer, payout). */
export const namedCommissions = (db: Kysely<DB>) =>
  db
    .selectFrom('rewards')
    .leftJoin('partners', 'partners.id', 'rewards.partner_id')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .leftJoin('customers', 'customers.id', 'transactions.customer_id')
    .leftJoin('payouts', 'payouts.id', 'rewards.payout_id')
    .select(SHOWN_COLUMNS)
    .select([
      'partners.public_id as partner_public_id',
      'transactions.key as transaction_key',
      'customers.key as customer_key',
      'payouts.public_id as payout_public_id',
      'rewards.fraud_flag',
    ]);

/** Commission rows by id as the wire shows them, with their public names (events of many rows). */
export async function listNamedCommissionsByIds(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
): Promise<NamedCommissionRow[]> {
  if (ids.length === 0) return [];
  return (
    namedCommissions(db)
      // `+program_id`: scoped, but looked up by id (see findSaleKeys).
      .where(sql<number>`+${sql.ref('rewards.program_id')}`, '=', programId)
      .where('rewards.id', 'in', [...ids])
      .orderBy('rewards.id')
      .execute()
  );
}
