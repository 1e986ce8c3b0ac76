import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  sql,
  type Updateable,
} from 'kysely';
import type { RewardsTable } from '../../db/domain-tables.ts';
import { PageStarts } from '../../db/page-starts.ts';
import { definePreparedArrayQuery, definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';

/**
 * Commission rows (the `rewards` of an affiliate program, plus manual commissions and clawbacks);
 * every query is scoped by the program.
 */

export type CommissionRow = Selectable<RewardsTable>;

// A literal, not a parameter: the planners use the partial `rewards_due` index only when the
// query's condition visibly implies the index's `status = 'review_period'`.
const IN_REVIEW = sql<string>`'review_period'`;

/** Due commissions (their hold has ended), of one partner or of the whole program, with whether their sale is archived. */
export async function listDueCommissions(
  db: Kysely<DB>,
  programId: number,
  partnerId: number | undefined,
  now: string,
  limit = 10_000,
) {
  let query = db
    .selectFrom('rewards')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select([
      'rewards.id',
      'rewards.partner_id',
      'rewards.amount',
      'rewards.amount_units',
      'transactions.archived_at',
    ])
    .where('rewards.program_id', '=', programId)
    .where('rewards.status', '=', IN_REVIEW)
    .where('rewards.available_at', '<=', now);
  if (partnerId !== undefined) query = query.where('rewards.partner_id', '=', partnerId);
  return query.limit(limit).execute();
}

/** Whether the program has a commission whose hold has ended and that is still pending. */
export async function hasDueCommissions(db: Kysely<DB>, programId: number, now: string) {
  const row = await db
    .selectFrom('rewards')
    .select('id')
    .where('program_id', '=', programId)
    .where('status', '=', IN_REVIEW)
    .where('available_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function setRewardsStatus(
  db: Kysely<DB>,
  programId: number,
  ids: readonly number[],
  values: Updateable<RewardsTable>,
) {
  if (ids.length === 0) return;
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('rewards')
      .set(values)
      .where('program_id', '=', programId)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
  }
}

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
const SHOWN_COLUMNS = [
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
};

/**
 * A listed commission as the list statement answers it: an array of its columns in select order
 * (`SHOWN_COLUMNS`, then the four names), made into a `NamedCommissionRow` by `namedRowOf`. The
 * drivers make arrays at a fraction of the cost of objects, and a literal costs little.
 */
type NamedCommissionTuple = [
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
];

function namedRowOf(row: NamedCommissionTuple): NamedCommissionRow {
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
  };
}

interface ListParams {
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
function buildListQuery(filter: CommissionListFilter, sort: 'asc' | 'desc', from: 'offset' | 'key') {
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
const listQueries = new Map<string, ReturnType<typeof buildListQuery>>();

function listQueryOf(
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
function listShape(filter: CommissionListFilter, sort: 'asc' | 'desc') {
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
const inListOrder = {
  desc: (a: NamedCommissionTuple, b: NamedCommissionTuple) =>
    a[10] < b[10] ? 1 : a[10] > b[10] ? -1 : b[0] - a[0],
  asc: (a: NamedCommissionTuple, b: NamedCommissionTuple) =>
    a[10] < b[10] ? -1 : a[10] > b[10] ? 1 : a[0] - b[0],
};

// Pages from this many rows in start from a remembered row when one is near (db/page-starts.ts);
// the first pages, where people look, are always counted from the start.
const DEEP_OFFSET = 1000;

/** Where deep pages of each list started lately, per database (program ids repeat across databases). */
const pageStartsOf = new WeakMap<Kysely<DB>, PageStarts<[createdAt: string, id: number]>>();

function pageStarts(db: Kysely<DB>) {
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

export async function findCommissionsByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  // Scoped, but looked up by id: see findSaleKeys.
  return db
    .selectFrom('rewards')
    .selectAll()
    .where(sql<number>`+${sql.ref('program_id')}`, '=', programId)
    .where('partner_id', 'is not', null)
    .where('id', 'in', [...ids])
    .execute();
}

/** Keys of the sales and buyers the commissions name. */
export async function findSaleKeys(db: Kysely<DB>, programId: number, transactionIds: readonly number[]) {
  if (transactionIds.length === 0) return [];
  return (
    db
      .selectFrom('transactions')
      .innerJoin('customers', 'customers.id', 'transactions.customer_id')
      .select([
        'transactions.id',
        'transactions.key',
        'transactions.archived_at',
        'customers.key as customer_key',
      ])
      // `+program_id`: still scoped, but not an index the planner would walk instead of the ids
      // (SQLite took the program's creation-order index and scanned every sale of the program).
      .where(sql<number>`+${sql.ref('transactions.program_id')}`, '=', programId)
      .where('transactions.id', 'in', [...transactionIds])
      .execute()
  );
}

export async function findSaleByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'archived_at'])
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Public ids of the payouts the commissions sit in. */
export async function findPayoutIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('payouts')
    .select(['id', 'public_id', 'status'])
    .where('program_id', '=', programId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function insertCommission(db: Kysely<DB>, values: Insertable<RewardsTable>) {
  return db.insertInto('rewards').values(values).returningAll().executeTakeFirstOrThrow();
}

/**
 * Puts every approved, unpaid commission and clawback of one currency that a payout may take into
 * payout `payoutId`, in one statement: not in a payout, approved by `approvedBy`, of a sale that is
 * not archived (a clawback is owed whatever its sale's state). On PostgreSQL the update locks what
 * it takes and re-checks each row a concurrent deny, refund or payout changed meanwhile, so a row
 * lands in one payout at most and the payout's items are read from what was taken.
 */
export async function claimPayableCommissions(
  db: Kysely<DB>,
  programId: number,
  claim: {
    payoutId: number;
    currency: string;
    partnerId?: number;
    approvedBy: string;
    minimumMicros: bigint;
    now: string;
  },
) {
  // Payable: approved, in no payout, of the currency, approved by the terms, of a sale that is not
  // archived (archived sales are few: the partial `transactions_archived` index lists them).
  const payable = (eb: ExpressionBuilder<DB, 'rewards'>) =>
    eb.and([
      eb('rewards.program_id', '=', programId),
      eb('rewards.status', '=', 'ok'),
      eb('rewards.payout_id', 'is', null),
      claim.partnerId === undefined
        ? // `+partner_id`: SQLite then reads the unpaid rows through `rewards_payout`, in table
          // order, instead of partner by partner (a random read per commission).
          eb(sql<number>`+${sql.ref('rewards.partner_id')}`, 'is not', null)
        : eb('rewards.partner_id', '=', claim.partnerId),
      eb('rewards.amount_units', '=', claim.currency),
      eb(
        sql<string>`coalesce(rewards.approved_at, rewards.available_at, rewards.created_at)`,
        '<=',
        claim.approvedBy,
      ),
      eb.or([
        eb('rewards.transaction_id', 'is', null),
        eb('rewards.role', '=', 'clawback'),
        eb(
          'rewards.transaction_id',
          'not in',
          eb
            .selectFrom('transactions')
            .select('transactions.id')
            .where('transactions.program_id', '=', programId)
            .where('transactions.archived_at', 'is not', null),
        ),
      ]),
    ]);
  // Only partners whose net reaches the minimum and is above zero (core/payouts.ts `paysNet`),
  // so a high minimum does not write rows it would give back.
  const byPartner = sql<number>`${sql.ref('rewards.partner_id')} + 0`;
  const paid = db
    .selectFrom('rewards')
    .select(byPartner.as('partner_id'))
    .where(payable)
    .groupBy(byPartner)
    .having((eb) =>
      eb.and([
        eb(eb.fn.sum('rewards.amount'), '>', 0),
        eb(eb.fn.sum('rewards.amount'), '>=', claim.minimumMicros),
      ]),
    );
  const result = await db
    .updateTable('rewards')
    .set({ payout_id: claim.payoutId, updated_at: claim.now })
    .where(payable)
    .where('rewards.partner_id', 'in', paid)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Takes commissions back out of a payout: all of them (a cancel) or those of some partners. */
export async function releasePayoutCommissions(
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  now: string,
  // biome-ignore lint/suspicious/noExplicitAny: a one-column select of partner ids.
  partnerIds?: SelectQueryBuilder<DB, any, { partner_id: number | null }>,
) {
  let query = db
    .updateTable('rewards')
    .set({ payout_id: null, updated_at: now })
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId);
  if (partnerIds !== undefined) query = query.where('partner_id', 'in', partnerIds);
  await query.execute();
}

/**
 * A payout marked paid: its approved commissions (and clawbacks) become paid in one statement
 * (core/commission-status.ts: only approved ones move). Answers the ids that moved.
 */
export async function payCommissionsOfPayout(
  db: Kysely<DB>,
  programId: number,
  payoutId: number,
  now: string,
) {
  return db
    .updateTable('rewards')
    .set({ status: 'paid', paid_at: now, updated_at: now })
    .where('program_id', '=', programId)
    .where('payout_id', '=', payoutId)
    .where('status', '=', 'ok')
    .returning('id')
    .execute();
}

/**
 * What a paid payout's commissions add up to per partner and currency, split by whether they are
 * in the partner's figures (a commission of an archived sale is not; a clawback always is).
 */
export async function sumPaidCommissionsOfPayout(db: Kysely<DB>, programId: number, payoutId: number) {
  const counted = sql<number>`case when ${sql.ref('transactions.archived_at')} is null or ${sql.ref('rewards.role')} = 'clawback' then 1 else 0 end`;
  return db
    .selectFrom('rewards')
    .leftJoin('transactions', 'transactions.id', 'rewards.transaction_id')
    .select((eb) => [
      'rewards.partner_id',
      'rewards.amount_units',
      counted.as('counted'),
      eb.fn.sum<number | bigint | string>('rewards.amount').as('amount'),
    ])
    .where('rewards.program_id', '=', programId)
    .where('rewards.payout_id', '=', payoutId)
    .where('rewards.status', '=', 'paid')
    .groupBy(['rewards.partner_id', 'rewards.amount_units', counted])
    .execute();
}

/** Commission rows with the public names the wire shows (partner, sale, buyer, payout). */
const namedCommissions = (db: Kysely<DB>) =>
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

/** Every commission row of one sale. */
export async function listCommissionsOfSale(db: Kysely<DB>, programId: number, transactionId: number) {
  return db
    .selectFrom('rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('transaction_id', '=', transactionId)
    .where('partner_id', 'is not', null)
    .orderBy('id')
    .execute();
}

const selectLatestOfPartner = definePreparedQuery<
  Pick<
    Selectable<RewardsTable>,
    'id' | 'role' | 'amount' | 'amount_units' | 'status' | 'available_at' | 'created_at'
  >,
  { programId: number; partnerId: number; limit: number }
>((db, param) =>
  db
    .selectFrom('rewards')
    .select(['id', 'role', 'amount', 'amount_units', 'status', 'available_at', 'created_at'])
    .where('program_id', '=', param('programId'))
    .where('partner_id', '=', param('partnerId'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(param('limit')),
);

/** A partner's newest commissions, the few columns a portal shows (index rewards_partner_created). */
export function listLatestCommissionsOfPartner(
  db: Kysely<DB>,
  programId: number,
  partnerId: number,
  limit: number,
) {
  return selectLatestOfPartner(db, { programId, partnerId, limit });
}
