/** The rows payouts move: payable commissions claimed, released, paid, and their sum. */
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../../db/tables.ts';

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
