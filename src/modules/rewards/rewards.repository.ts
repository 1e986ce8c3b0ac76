import { type Insertable, type Kysely, type Selectable, sql, type Updateable } from 'kysely';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { definePreparedQuery } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import type { NewsletterRewardsTable } from './rewards.tables.ts';
import './rewards.tables.ts';

export type RewardRow = Selectable<NewsletterRewardsTable>;

/** Reward queries; every one is scoped by the program. */

export async function insertReward(db: Kysely<DB>, values: Insertable<NewsletterRewardsTable>) {
  return db.insertInto('newsletter_rewards').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findReward(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('newsletter_rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateReward(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<NewsletterRewardsTable>,
) {
  return db
    .updateTable('newsletter_rewards')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteReward(db: Kysely<DB>, programId: number, id: number) {
  const deleted = await db
    .deleteFrom('newsletter_rewards')
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

export async function listRewards(
  db: Kysely<DB>,
  programId: number,
  window: { offset: number; fetch: number },
  sort: 'asc' | 'desc',
) {
  return db
    .selectFrom('newsletter_rewards')
    .selectAll()
    .where('program_id', '=', programId)
    .$call(pageInCreationOrder(sort, window))
    .execute();
}

const selectMilestones = definePreparedQuery<RewardRow, { programId: number }>((db, param) =>
  db
    .selectFrom('newsletter_rewards')
    .selectAll()
    .where('program_id', '=', param('programId'))
    .orderBy('subscriber_count')
    .orderBy('id'),
);

/** Every reward of the program, lowest threshold first (a program has a handful). */
export async function listMilestones(db: Kysely<DB>, programId: number) {
  return selectMilestones(db, { programId });
}

export async function countRewards(db: Kysely<DB>, programId: number): Promise<number> {
  const row = await db
    .selectFrom('newsletter_rewards')
    .select(sql<number | string>`count(*)`.as('n'))
    .where('program_id', '=', programId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

const selectUnlockedIds = definePreparedQuery<
  { reward_id: number },
  { programId: number; subscriberId: number }
>((db, param) =>
  db
    .selectFrom('subscriber_rewards')
    .select('reward_id')
    .where('program_id', '=', param('programId'))
    .where('subscriber_id', '=', param('subscriberId')),
);

export async function unlockedRewardIds(db: Kysely<DB>, programId: number, subscriberId: number) {
  const rows = await selectUnlockedIds(db, { programId, subscriberId });
  return new Set(rows.map((row) => Number(row.reward_id)));
}

const insertUnlock = definePreparedQuery<
  { reward_id: number },
  { programId: number; subscriberId: number; rewardId: number; createdAt: string }
>((db, param) =>
  db
    .insertInto('subscriber_rewards')
    .values({
      program_id: param('programId'),
      subscriber_id: param('subscriberId'),
      reward_id: param('rewardId'),
      created_at: param('createdAt'),
    })
    .onConflict((oc) => oc.columns(['program_id', 'subscriber_id', 'reward_id']).doNothing())
    .returning('reward_id'),
);

const bumpTimesTriggered = definePreparedQuery<never, { programId: number; rewardId: number }>((db, param) =>
  db
    .updateTable('newsletter_rewards')
    .set((eb) => ({ times_triggered: eb('times_triggered', '+', 1) }))
    .where('program_id', '=', param('programId'))
    .where('id', '=', param('rewardId')),
);

/**
 * Records that a subscriber unlocked a reward, once: the primary key refuses a second row, so of
 * two racing writers only one sees `true` and counts the trigger.
 */
export async function insertUnlockOnce(
  db: Kysely<DB>,
  programId: number,
  subscriberId: number,
  rewardId: number,
  createdAt: string,
): Promise<boolean> {
  const rows = await insertUnlock(db, { programId, subscriberId, rewardId, createdAt });
  if (rows.length === 0) return false;
  await bumpTimesTriggered(db, { programId, rewardId });
  return true;
}

const unlockedQuery = (db: Kysely<DB>) =>
  db
    .selectFrom('subscriber_rewards')
    .innerJoin('newsletter_rewards', 'newsletter_rewards.id', 'subscriber_rewards.reward_id')
    .selectAll('newsletter_rewards')
    .select(['subscriber_rewards.subscriber_id', 'subscriber_rewards.created_at as unlocked_at']);

type UnlockedRow = Awaited<ReturnType<ReturnType<typeof unlockedQuery>['execute']>>[number];

const selectUnlockedOf = definePreparedQuery<UnlockedRow, { programId: number; subscriberId: number }>(
  (db, param) =>
    unlockedQuery(db)
      .where('subscriber_rewards.program_id', '=', param('programId'))
      .where('subscriber_rewards.subscriber_id', '=', param('subscriberId'))
      .orderBy('subscriber_rewards.created_at')
      .orderBy('newsletter_rewards.id'),
);

/** The rewards each subscriber unlocked, with when, oldest unlock first. */
export async function listUnlocked(db: Kysely<DB>, programId: number, subscriberIds: readonly number[]) {
  const [subscriberId, ...others] = subscriberIds;
  if (subscriberId === undefined) return [];
  // One subscriber (fetch, portal, create) is the hot path: a prepared statement.
  if (others.length === 0) return selectUnlockedOf(db, { programId, subscriberId });
  return db
    .selectFrom('subscriber_rewards')
    .innerJoin('newsletter_rewards', 'newsletter_rewards.id', 'subscriber_rewards.reward_id')
    .selectAll('newsletter_rewards')
    .select(['subscriber_rewards.subscriber_id', 'subscriber_rewards.created_at as unlocked_at'])
    .where('subscriber_rewards.program_id', '=', programId)
    .where('subscriber_rewards.subscriber_id', 'in', [...subscriberIds])
    .orderBy('subscriber_rewards.created_at')
    .orderBy('newsletter_rewards.id')
    .execute();
}
