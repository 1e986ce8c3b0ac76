import { type Compilable, type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import type { PageRequest } from '../../core/pages.ts';
import { pageWindow } from '../../core/pages.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { PromotionCodeRedemptionsTable, PromotionCodesTable } from './promotion-codes.tables.ts';
import './promotion-codes.tables.ts';

/** Promotion code and redemption queries; every one is scoped by the program. */
export type PromotionCodeRow = Selectable<PromotionCodesTable>;
export type RedemptionRow = Pick<
  Selectable<PromotionCodeRedemptionsTable>,
  'promotion_code_id' | 'transaction_key' | 'redeemed_at'
>;

/** How many redemptions a code's answer lists (the latest ones). */
export const SHOWN_REDEMPTIONS = 25;

/** Inserts a code unless its text is taken in the program (any case); then nothing. */
export async function insertPromotionCodeIfFree(db: Kysely<DB>, values: Insertable<PromotionCodesTable>) {
  return db
    .insertInto('promotion_codes')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

const selectCodeByText = definePreparedQuery<PromotionCodeRow, { programId: number; codeLower: string }>(
  (db, param) =>
    db
      .selectFrom('promotion_codes')
      .selectAll()
      .where('program_id', '=', param('programId'))
      .where('code_lower', '=', param('codeLower')),
);

/** A code by its text, case-insensitively. */
export async function findPromotionCode(db: Kysely<DB>, programId: number, code: string) {
  return (await selectCodeByText(db, { programId, codeLower: code.toLowerCase() }))[0];
}

/** What a redemption reads of a code's coupon (its state, last day and limit). */
export interface CouponOfCode {
  id: number;
  uuid_code: string;
  active: boolean | number;
  deleted_at: string | null;
  date_status: boolean | number;
  date_value: string | null;
  times_status: boolean | number;
  times_value: number | null;
  times_redeemed: number;
}

/** What a redemption reads of a code: its id and text, and what the rule of core/coupons.ts checks. */
export type CodeOfRedemption = Pick<PromotionCodeRow, (typeof CODE_OF_REDEMPTION)[number]>;

// Only the columns a redemption uses: better-sqlite3 builds a row object column by column, and
// the whole row with its coupon's columns cost several times a narrow read.
const CODE_OF_REDEMPTION = [
  'id',
  'code',
  'first_time_order',
  'limit_partners',
  'partners',
  'limit_customers',
  'customers',
  'minimum_order_status',
  'minimum_order_value',
  'expiration_status',
  'expiration_value',
  'times_status',
  'times_value',
  'times_redeemed',
] as const;

type CodeWithCouponRow = CodeOfRedemption & {
  [Column in keyof CouponOfCode as `coupon__${Column}`]: CouponOfCode[Column];
};

// Codes depend on coupons: a code's lookup for a redemption reads its coupon in the same statement.
const selectCodeWithCoupon = definePreparedQuery<CodeWithCouponRow, { programId: number; codeLower: string }>(
  (db, param) =>
    db
      .selectFrom('promotion_codes')
      .innerJoin('coupons', (join) =>
        join
          .onRef('coupons.id', '=', 'promotion_codes.coupon_id')
          .onRef('coupons.program_id', '=', 'promotion_codes.program_id'),
      )
      .select(CODE_OF_REDEMPTION.map((column) => `promotion_codes.${column}` as const))
      .select([
        'coupons.id as coupon__id',
        'coupons.uuid_code as coupon__uuid_code',
        'coupons.active as coupon__active',
        'coupons.deleted_at as coupon__deleted_at',
        'coupons.date_status as coupon__date_status',
        'coupons.date_value as coupon__date_value',
        'coupons.times_status as coupon__times_status',
        'coupons.times_value as coupon__times_value',
        'coupons.times_redeemed as coupon__times_redeemed',
      ])
      .where('promotion_codes.program_id', '=', param('programId'))
      .where('promotion_codes.code_lower', '=', param('codeLower')),
);

/** A code by its text, case-insensitively, with its coupon (deleted or not): one read of what a redemption needs. */
export async function findCodeWithCoupon(db: Kysely<DB>, programId: number, code: string) {
  const [row] = await selectCodeWithCoupon(db, { programId, codeLower: code.toLowerCase() });
  if (!row) return undefined;
  // The row serves as the code: its `coupon__` columns are ignored by every reader.
  const coupon: CouponOfCode = {
    id: row.coupon__id,
    uuid_code: row.coupon__uuid_code,
    active: row.coupon__active,
    deleted_at: row.coupon__deleted_at,
    date_status: row.coupon__date_status,
    date_value: row.coupon__date_value,
    times_status: row.coupon__times_status,
    times_value: row.coupon__times_value,
    times_redeemed: row.coupon__times_redeemed,
  };
  return { code: row as CodeOfRedemption, coupon };
}

export async function listPromotionCodes(
  db: Kysely<DB>,
  programId: number,
  page: PageRequest,
  couponId: number | undefined,
) {
  let query = db.selectFrom('promotion_codes').selectAll().where('program_id', '=', programId);
  if (couponId !== undefined) query = query.where('coupon_id', '=', couponId);
  return query.$call(pageInCreationOrder(page.sort, pageWindow(page))).execute();
}

/** The codes of several coupons, oldest first. */
export async function listCodesOfCoupons(db: Kysely<DB>, programId: number, couponIds: readonly number[]) {
  if (couponIds.length === 0) return [];
  return db
    .selectFrom('promotion_codes')
    .selectAll()
    .where('program_id', '=', programId)
    .where('coupon_id', 'in', [...couponIds])
    .$call(pageInCreationOrder('asc'))
    .execute();
}

export async function updatePromotionCode(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<PromotionCodesTable>,
) {
  return db
    .updateTable('promotion_codes')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deletePromotionCode(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('promotion_codes').where('program_id', '=', programId).where('id', '=', id).execute();
}

/**
 * The latest SHOWN_REDEMPTIONS redemptions of each code, oldest first per code: one walk of the
 * code's index from its newest redemption per code, so a code redeemed a million times costs
 * what one redeemed a hundred times does.
 */
export async function latestRedemptions(
  db: Kysely<DB>,
  programId: number,
  codeIds: readonly number[],
): Promise<RedemptionRow[]> {
  const perCode = await Promise.all(
    codeIds.map((codeId) => selectLatestRedemptions(db, { programId, codeId })),
  );
  return perCode.flatMap((rows) => rows.reverse());
}

const selectLatestRedemptions = definePreparedQuery<RedemptionRow, { programId: number; codeId: number }>(
  (db, param) =>
    db
      .selectFrom('promotion_code_redemptions')
      .select(['promotion_code_id', 'transaction_key', 'redeemed_at'])
      .where('program_id', '=', param('programId'))
      .where('promotion_code_id', '=', param('codeId'))
      .orderBy('id', 'desc')
      .limit(SHOWN_REDEMPTIONS),
);

// The redemption path's statements are compiled once (db/prepared.ts).
const insertRedemptionRow = definePreparedQuery<
  { id: number },
  { programId: number; codeId: number; transactionKey: string | null; redeemedAt: string }
>((db, param) =>
  db
    .insertInto('promotion_code_redemptions')
    .values({
      program_id: param('programId'),
      promotion_code_id: param('codeId'),
      transaction_key: param('transactionKey'),
      redeemed_at: param('redeemedAt'),
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id'),
);

/**
 * Records a redemption; nothing when its transaction key already redeemed the code (then another
 * request, perhaps concurrent, holds it: the caller replays). On PostgreSQL a concurrent insert of
 * the same key waits for the first to commit or roll back.
 */
export async function insertRedemption(
  trx: Kysely<DB>,
  values: Insertable<PromotionCodeRedemptionsTable>,
): Promise<boolean> {
  const rows = await insertRedemptionRow(trx, {
    programId: values.program_id,
    codeId: values.promotion_code_id,
    transactionKey: values.transaction_key ?? null,
    redeemedAt: values.redeemed_at,
  });
  return rows.length > 0;
}

/**
 * The code's count, conditional on the code and on its coupon in one statement; the coupon's
 * count follows by trigger (migration 0020). On PostgreSQL the coupon's row is locked by the
 * condition itself (`FOR UPDATE`), so redemptions of several codes of one coupon serialize on it
 * and each re-checks the coupon's limit against the count the one before left; SQLite has one
 * writer, so the condition it reads is current. `answered` returns the whole updated code, for a
 * redemption's answer; otherwise only its id: a sale answers no code, and on SQLite returning
 * every column of the row costs more than the update itself.
 */
const updateCodeCount = <Row>(lockCoupon: boolean, answered: boolean) =>
  definePreparedQuery<Row, { programId: number; id: number; today: string }>((db, param) => {
    const update = db
      .updateTable('promotion_codes')
      .set({ times_redeemed: sql`times_redeemed + 1` })
      .where('program_id', '=', param('programId'))
      .where('id', '=', param('id'))
      .where((eb) =>
        eb.or([eb('expiration_status', '=', false), eb('expiration_value', '>=', param('today'))]),
      )
      .where((eb) =>
        eb.or([eb('times_status', '=', false), eb('times_redeemed', '<', eb.ref('times_value'))]),
      )
      .where((eb) => {
        const coupon = eb
          .selectFrom('coupons')
          .select(sql.lit(1).as('redeemable'))
          .whereRef('coupons.id', '=', 'promotion_codes.coupon_id')
          .whereRef('coupons.program_id', '=', 'promotion_codes.program_id')
          .where('coupons.active', '=', true)
          .where('coupons.deleted_at', 'is', null)
          .where((c) =>
            c.or([c('coupons.date_status', '=', false), c('coupons.date_value', '>=', param('today'))]),
          )
          .where((c) =>
            c.or([
              c('coupons.times_status', '=', false),
              c('coupons.times_redeemed', '<', c.ref('coupons.times_value')),
            ]),
          );
        return eb.exists(lockCoupon ? coupon.forUpdate() : coupon);
      });
    return (answered ? update.returningAll() : update.returning('id')) as unknown as Compilable<Row>;
  });
const updateCodeCountLocking = updateCodeCount<PromotionCodeRow>(true, true);
const updateCodeCountPlain = updateCodeCount<PromotionCodeRow>(false, true);
const updateCodeCountLockingById = updateCodeCount<{ id: number }>(true, false);
const updateCodeCountPlainById = updateCodeCount<{ id: number }>(false, false);

/**
 * Counts one redemption on the code and its coupon if both may still be redeemed, in one
 * statement: the code's and the coupon's last days not passed, their limits not reached, the
 * coupon active and not deleted. Concurrent redemptions serialize on the rows and each re-checks
 * the conditions, so no limit is ever overshot. The updated code, or undefined.
 */
export async function countCodeRedemption(trx: Kysely<DB>, programId: number, id: number, today: string) {
  const update = isPostgres(trx) ? updateCodeCountLocking : updateCodeCountPlain;
  return (await update(trx, { programId, id, today }))[0];
}

/** `countCodeRedemption` when the updated code is not needed: whether it was counted. */
export async function countCodeRedemptionOnly(trx: Kysely<DB>, programId: number, id: number, today: string) {
  const update = isPostgres(trx) ? updateCodeCountLockingById : updateCodeCountPlainById;
  return (await update(trx, { programId, id, today })).length > 0;
}
