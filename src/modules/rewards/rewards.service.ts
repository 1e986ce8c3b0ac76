import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { type FulfillmentType, fulfillmentTypeNames } from '../../core/milestones.ts';
import { exactPageWindow, type PageRequest } from '../../core/pages.ts';
import { nowTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import * as repository from './rewards.repository.ts';
import type { CreateRewardBody, RewardChanges, UpdateRewardBody } from './rewards.schemas.ts';

export type { RewardRow } from './rewards.repository.ts';

type RewardRow = repository.RewardRow;

/**
 * Unlocks a reward for every subscriber already past its threshold, in the caller's
 * transaction. The subscribers module supplies it (through the rewards routes), since the
 * subscribers, their e-mails and events are its own.
 */
export type UnlockForSubscribersPast = (trx: Kysely<DB>, reward: RewardRow, now: string) => Promise<void>;

const rewardNotFound = () => new AppError('not_found', 'Reward not found.');

type RewardEntryColumns = Pick<
  RewardRow,
  | 'id'
  | 'name'
  | 'description'
  | 'fulfillment_type'
  | 'fulfillment_value'
  | 'subscriber_count'
  | 'created_at'
  | 'updated_at'
>;

function toRewardEntry(row: RewardEntryColumns) {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    status: 'active',
    type: 'default',
    fulfillment_type: row.fulfillment_type,
    fulfillment_type_name:
      fulfillmentTypeNames[row.fulfillment_type as FulfillmentType] ?? row.fulfillment_type,
    fulfillment_value: row.fulfillment_value,
    subscriber_count: Number(row.subscriber_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toReward(row: RewardRow) {
  return { ...toRewardEntry(row), times_triggered: Number(row.times_triggered) };
}

/** `subscribers_count` as a positive integer, from a number or a numeric string; 422 otherwise. */
export function subscriberCountOf(value: number | string, field: string): number {
  const text = typeof value === 'number' ? String(value) : value.trim();
  if (!/^-?\d+$/.test(text)) throw fieldError(field, 'integer');
  const n = Number(text);
  if (n < 1) throw fieldError(field, 'min', 1);
  if (n > 1_000_000_000) throw fieldError(field, 'max', 1_000_000_000);
  return n;
}

/** A reward id from a path, query or body: anything but a positive integer names nothing. */
function rewardIdOf(value: number | string | undefined): number | undefined {
  const text = String(value ?? '').trim();
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

async function getRewardRowOrThrow(db: Kysely<DB>, programId: number, id: number | string | undefined) {
  const rewardId = rewardIdOf(id);
  const row = rewardId === undefined ? undefined : await repository.findReward(db, programId, rewardId);
  if (!row) throw rewardNotFound();
  return row;
}

export async function createReward(
  ctx: ProgramContext,
  body: CreateRewardBody,
  unlockPast: UnlockForSubscribersPast,
) {
  const subscriberCount = subscriberCountOf(body.subscribers_count, 'subscribers_count');
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const row = await repository.insertReward(trx, {
      program_id: programId,
      name: body.name,
      description: body.description ?? '',
      fulfillment_type: body.fulfillment_type ?? 'url_link',
      fulfillment_value: body.fulfillment_value ?? '',
      subscriber_count: subscriberCount,
      created_at: now,
      updated_at: now,
    });
    // Subscribers already past the threshold have reached this milestone too.
    await unlockPast(trx, row, now);
    return toReward((await repository.findReward(trx, programId, Number(row.id))) ?? row);
  });
}

export async function getReward(ctx: ProgramContext, id: string) {
  return toReward(await getRewardRowOrThrow(ctx.database.db, ctx.program.id, id));
}

export async function listRewards(ctx: ProgramContext, query: PageRequest) {
  const rows = await repository.listRewards(
    ctx.database.db,
    ctx.program.id,
    exactPageWindow(query),
    query.sort,
  );
  return rows.map(toRewardEntry);
}

/** `PUT /v1/rewards` with `id`: flat or wrapped changes. Lowering the threshold unlocks it for subscribers past it. */
export async function updateReward(
  ctx: ProgramContext,
  body: UpdateRewardBody,
  unlockPast: UnlockForSubscribersPast,
) {
  const { update, id, ...flat } = body;
  const changes: RewardChanges = update ?? flat;
  const prefix = update ? 'update.' : '';
  const subscriberCount =
    changes.subscribers_count === undefined
      ? undefined
      : subscriberCountOf(changes.subscribers_count, `${prefix}subscribers_count`);
  const programId = ctx.program.id;
  return ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const row = await getRewardRowOrThrow(trx, programId, id);
    const updated = await repository.updateReward(trx, programId, Number(row.id), {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.fulfillment_type !== undefined ? { fulfillment_type: changes.fulfillment_type } : {}),
      ...(changes.fulfillment_value !== undefined ? { fulfillment_value: changes.fulfillment_value } : {}),
      ...(subscriberCount !== undefined ? { subscriber_count: subscriberCount } : {}),
      updated_at: now,
    });
    if (!updated) throw rewardNotFound();
    if (subscriberCount !== undefined && subscriberCount < Number(row.subscriber_count))
      await unlockPast(trx, updated, now);
    return toReward((await repository.findReward(trx, programId, Number(row.id))) ?? updated);
  });
}

/** `DELETE /v1/rewards` with `id`. Unlocks of the reward go with it. */
export async function deleteReward(ctx: ProgramContext, id: number | string) {
  const rewardId = rewardIdOf(id);
  const deleted =
    rewardId !== undefined && (await repository.deleteReward(ctx.database.db, ctx.program.id, rewardId));
  if (!deleted) throw rewardNotFound();
}

// For the subscribers module and the program overview.

/** Every reward of the program, lowest threshold first. */
export const listMilestones = (db: Kysely<DB>, programId: number) => repository.listMilestones(db, programId);

export const countRewards = (db: Kysely<DB>, programId: number) => repository.countRewards(db, programId);

export const unlockedRewardIds = (db: Kysely<DB>, programId: number, subscriberId: number) =>
  repository.unlockedRewardIds(db, programId, subscriberId);

/** Records an unlock once; `true` only for the writer that recorded it (it counts the trigger). */
export const unlockRewardOnce = (
  db: Kysely<DB>,
  programId: number,
  subscriberId: number,
  rewardId: number,
  at: string,
) => repository.insertUnlockOnce(db, programId, subscriberId, rewardId, at);

export type UnlockedReward = ReturnType<typeof toRewardEntry> & { unlocked_at: string };

/** One unlocked reward as a subscriber's `reward` array shows it, from columns read with the subscriber. */
export const unlockedRewardOf = (row: RewardEntryColumns, unlockedAt: string): UnlockedReward => ({
  ...toRewardEntry(row),
  unlocked_at: unlockedAt,
});

/** The rewards each subscriber unlocked, as their `reward` arrays show them. */
export async function unlockedRewardsOf(
  db: Kysely<DB>,
  programId: number,
  subscriberIds: readonly number[],
): Promise<Map<number, UnlockedReward[]>> {
  const rows = await repository.listUnlocked(db, programId, subscriberIds);
  const out = new Map<number, UnlockedReward[]>();
  for (const row of rows) {
    const key = Number(row.subscriber_id);
    const list = out.get(key) ?? [];
    list.push({ ...toRewardEntry(row), unlocked_at: row.unlocked_at });
    out.set(key, list);
  }
  return out;
}
