import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { SubscribersTable } from './subscribers.tables.ts';
import './subscribers.tables.ts';

export type SubscriberRow = Selectable<SubscribersTable>;

/** Subscriber queries; every one is scoped by the program. */

/** Every column a create writes: the insert is prepared once, every column bound by name. */
type NewSubscriber = Required<Omit<Insertable<SubscribersTable>, 'id' | 'referrals_count'>>;

const insertSubscriber = definePreparedQuery<SubscriberRow, NewSubscriber>((db, param) =>
  db
    .insertInto('subscribers')
    .values({
      program_id: param('program_id'),
      public_id: param('public_id'),
      email: param('email'),
      email_lower: param('email_lower'),
      name: param('name'),
      tos: param('tos'),
      marketing_consent: param('marketing_consent'),
      approved: param('approved'),
      status: param('status'),
      code: param('code'),
      secret: param('secret'),
      is_referred: param('is_referred'),
      referrer_id: param('referrer_id'),
      request_digest: param('request_digest'),
      referral_pending_until: param('referral_pending_until'),
      referral_lapsed_at: param('referral_lapsed_at'),
      created_at: param('created_at'),
      updated_at: param('updated_at'),
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll(),
);

/** Inserts, or answers undefined when the e-mail, id or code is taken (no error: the transaction goes on). */
export async function insertSubscriberIfFree(db: Kysely<DB>, values: NewSubscriber) {
  return (await insertSubscriber(db, values))[0];
}

const subscriberBy = (column: 'public_id' | 'email_lower' | 'code') =>
  definePreparedQuery<SubscriberRow, { programId: number; value: string }>((db, param) =>
    db
      .selectFrom('subscribers')
      .selectAll()
      .where('program_id', '=', param('programId'))
      .where(column, '=', param('value')),
  );
const selectBy = {
  public_id: subscriberBy('public_id'),
  email_lower: subscriberBy('email_lower'),
  code: subscriberBy('code'),
};

export async function findSubscriberBy(
  db: Kysely<DB>,
  programId: number,
  column: 'public_id' | 'email_lower' | 'code',
  value: string,
): Promise<SubscriberRow | undefined> {
  return (await selectBy[column](db, { programId, value }))[0];
}

const selectById = definePreparedQuery<SubscriberRow, { programId: number; id: number }>((db, param) =>
  db
    .selectFrom('subscribers')
    .selectAll()
    .where('program_id', '=', param('programId'))
    .where('id', '=', param('id')),
);

export async function findSubscriberById(db: Kysely<DB>, programId: number, id: number) {
  return (await selectById(db, { programId, id }))[0];
}

/**
 * Changes a subscriber unless its new `email` (in any case) or `id` is another subscriber's:
 * checked first, in the caller's transaction, so the usual refusal raises nothing in the database
 * (ADR 0053).
 */
export async function updateSubscriberUnlessTaken(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<SubscribersTable>,
): Promise<{ updated: SubscriberRow } | { taken: 'email' | 'id' }> {
  const checks = [
    ['email_lower', values.email_lower, 'email'],
    ['public_id', values.public_id, 'id'],
  ] as const;
  for (const [column, value, field] of checks) {
    if (typeof value !== 'string') continue;
    const holder = await findSubscriberBy(db, programId, column, value);
    if (holder && Number(holder.id) !== id) return { taken: field };
  }
  return { updated: await updateSubscriber(db, programId, id, values) };
}

export async function updateSubscriber(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<SubscribersTable>,
) {
  return db
    .updateTable('subscribers')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteSubscriber(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('subscribers').where('program_id', '=', programId).where('id', '=', id).execute();
}

const addReferrals = definePreparedQuery<SubscriberRow, { programId: number; id: number; delta: number }>(
  (db, param) =>
    db
      .updateTable('subscribers')
      .set((eb) => ({ referrals_count: eb('referrals_count', '+', param('delta')) }))
      .where('program_id', '=', param('programId'))
      .where('id', '=', param('id'))
      .returningAll(),
);

/**
 * Adds to a referrer's count in one atomic statement and answers the row as it now is: two
 * referrals racing are serialized by the row (PostgreSQL) or the write lock (SQLite), and each
 * sees the count its own change made.
 */
export async function addToReferralsCount(db: Kysely<DB>, programId: number, id: number, delta: number) {
  return (await addReferrals(db, { programId, id, delta }))[0];
}

export interface SubscriberListFilter {
  isReferred?: boolean;
  publicId?: string;
  emailLower?: string;
}

export async function listSubscribers(
  db: Kysely<DB>,
  programId: number,
  filter: SubscriberListFilter,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  let query = db.selectFrom('subscribers').selectAll().where('program_id', '=', programId);
  if (filter.isReferred !== undefined) query = query.where('is_referred', '=', filter.isReferred);
  if (filter.publicId !== undefined) query = query.where('public_id', '=', filter.publicId);
  if (filter.emailLower !== undefined) query = query.where('email_lower', '=', filter.emailLower);
  return query.$call(pageInCreationOrder(sort, window)).execute();
}

/** Subscribers whose count reached `threshold` (index subscribers_referrals). */
export async function listSubscribersPast(db: Kysely<DB>, programId: number, threshold: number) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('program_id', '=', programId)
    .where('referrals_count', '>=', threshold)
    .orderBy('id')
    .execute();
}

const selectLeaders = definePreparedQuery<
  Pick<SubscriberRow, 'id' | 'name' | 'email' | 'referrals_count'>,
  { programId: number; limit: number }
>((db, param) =>
  db
    .selectFrom('subscribers')
    .select(['id', 'name', 'email', 'referrals_count'])
    .where('program_id', '=', param('programId'))
    .where('referrals_count', '>', sql.lit(0))
    .orderBy('referrals_count', 'desc')
    .orderBy('id', 'asc')
    .limit(param('limit')),
);

/** The top referrers, most referrals first (ties: who signed up first). */
export async function listLeaders(db: Kysely<DB>, programId: number, limit: number) {
  return selectLeaders(db, { programId, limit });
}

const portalQuery = (db: Kysely<DB>) =>
  db
    .selectFrom('programs')
    .innerJoin('subscribers', 'subscribers.program_id', 'programs.id')
    .leftJoin('subscriber_rewards', (join) =>
      join
        .onRef('subscriber_rewards.program_id', '=', 'subscribers.program_id')
        .onRef('subscriber_rewards.subscriber_id', '=', 'subscribers.id'),
    )
    .leftJoin('newsletter_rewards', 'newsletter_rewards.id', 'subscriber_rewards.reward_id')
    .selectAll('subscribers')
    .select([
      'programs.name as program_name',
      'programs.type as program_type',
      'programs.settings as program_settings',
      'programs.logo_digest as program_logo_digest',
      'newsletter_rewards.id as reward_id',
      'newsletter_rewards.name as reward_name',
      'newsletter_rewards.description as reward_description',
      'newsletter_rewards.fulfillment_type as reward_fulfillment_type',
      'newsletter_rewards.fulfillment_value as reward_fulfillment_value',
      'newsletter_rewards.subscriber_count as reward_subscriber_count',
      'newsletter_rewards.created_at as reward_created_at',
      'newsletter_rewards.updated_at as reward_updated_at',
      'subscriber_rewards.created_at as unlocked_at',
    ]);

export type PortalRow = Awaited<ReturnType<ReturnType<typeof portalQuery>['execute']>>[number];

const selectPortalRows = definePreparedQuery<PortalRow, { programPublicId: string; code: string }>(
  (db, param) =>
    portalQuery(db)
      .where('programs.public_id', '=', param('programPublicId'))
      .where('subscribers.code', '=', param('code'))
      .orderBy('subscriber_rewards.created_at')
      .orderBy('newsletter_rewards.id'),
);

/**
 * The subscriber portal's read, one statement where it was three point reads: the program by its
 * public id, its subscriber by code, and each reward the subscriber unlocked (one row per reward,
 * oldest unlock first; one row with null reward columns when there is none). Empty when the
 * program or the code names nothing.
 */
export async function findPortalRows(db: Kysely<DB>, programPublicId: string, code: string) {
  return selectPortalRows(db, { programPublicId, code });
}

/** Referred subscribers whose pending window has ended by `now` (a bounded batch). */
export async function findEndedWindows(db: Kysely<DB>, programId: number, now: string, limit = 500) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('program_id', '=', programId)
    .where('referral_pending_until', 'is not', null)
    .where('referral_pending_until', '<=', now)
    .orderBy('referral_pending_until')
    .limit(limit)
    .execute();
}

/** Ends a subscriber's pending window; false when another writer ended it first. */
export async function endWindow(db: Kysely<DB>, programId: number, id: number): Promise<boolean> {
  const ended = await db
    .updateTable('subscribers')
    .set({ referral_pending_until: null })
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('referral_pending_until', 'is not', null)
    .returning('id')
    .executeTakeFirst();
  return ended !== undefined;
}
