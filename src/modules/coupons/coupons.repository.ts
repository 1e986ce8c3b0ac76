import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { PageRequest } from '../../core/pages.ts';
import { pageWindow } from '../../core/pages.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { DB } from '../../db/tables.ts';
import type { CouponsTable } from './coupons.tables.ts';
import './coupons.tables.ts';

/** Coupon queries; every one is scoped by the program. Deleted coupons are found by id only. */
export type CouponRow = Selectable<CouponsTable>;

/**
 * Inserts a coupon unless its `uuid_code` is taken by a live coupon of the program; then nothing
 * (no error, which on PostgreSQL would abort the transaction): the caller replays or refuses.
 */
export async function insertCouponIfFree(db: Kysely<DB>, values: Insertable<CouponsTable>) {
  return db
    .insertInto('coupons')
    .values(values)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** A live coupon by its `uuid_code`. */
export async function findCouponByUuid(db: Kysely<DB>, programId: number, uuidCode: string) {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('program_id', '=', programId)
    .where('uuid_code', '=', uuidCode)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A live coupon by its integer id (the older update form, a code's `coupon_id`). */
export async function findLiveCouponById(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Coupons by id, deleted ones included (the coupon of a code). */
export async function findCouponsByIds(db: Kysely<DB>, programId: number, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function listCoupons(db: Kysely<DB>, programId: number, page: PageRequest) {
  return db
    .selectFrom('coupons')
    .selectAll()
    .where('program_id', '=', programId)
    .where('deleted_at', 'is', null)
    .$call(pageInCreationOrder(page.sort, pageWindow(page)))
    .execute();
}

export async function updateCoupon(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<CouponsTable>,
) {
  return db
    .updateTable('coupons')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}
