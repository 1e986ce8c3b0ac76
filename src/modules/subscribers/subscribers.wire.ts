import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { AppError } from '../../core/errors.ts';
import { type SubscriberStatus, subscriberStatusLabel } from '../../core/milestones.ts';
import type { DB } from '../../db/tables.ts';
import { type UnlockedReward, unlockedRewardsOf } from '../rewards/rewards.service.ts';
import * as repository from './subscribers.repository.ts';

export type SubscriberRow = repository.SubscriberRow;

/**
 * Where links point: `PUBLIC_URL` or the request's own origin, and the program's public id.
 * Routes and pages build it from the request; services never see HTTP.
 */
export interface LinkBase {
  baseUrl: string;
}

export const subscriberNotFound = () => new AppError('not_found', 'Subscriber not found.');

export const nullableBoolean = (value: boolean | number | null) => (value === null ? null : Boolean(value));

export const shareLinkOf = (base: LinkBase, programPublicId: string, row: Pick<SubscriberRow, 'code'>) =>
  `${base.baseUrl}/share/${encodeURIComponent(programPublicId)}/${encodeURIComponent(row.code)}`;

export const portalLinkOf = (
  base: LinkBase,
  programPublicId: string,
  row: Pick<SubscriberRow, 'code' | 'secret'>,
) =>
  `${base.baseUrl}/portal/${encodeURIComponent(programPublicId)}/${encodeURIComponent(row.code)}/${row.secret}`;

export function toSubscriber(
  ctx: ProgramContext,
  base: LinkBase,
  row: SubscriberRow,
  rewards: Map<number, UnlockedReward[]>,
) {
  return {
    id: row.public_id,
    name: row.name,
    email: row.email,
    is_referred: Boolean(row.is_referred),
    tos: nullableBoolean(row.tos),
    marketing_consent: nullableBoolean(row.marketing_consent),
    status: subscriberStatusLabel[row.status as SubscriberStatus] ?? row.status,
    approved: Boolean(row.approved),
    portal_link: portalLinkOf(base, ctx.program.publicId, row),
    share_link: shareLinkOf(base, ctx.program.publicId, row),
    referrals_count: Number(row.referrals_count),
    reward: rewards.get(Number(row.id)) ?? [],
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: null,
  };
}

export type Subscriber = ReturnType<typeof toSubscriber>;

export async function serialize(db: Kysely<DB>, ctx: ProgramContext, base: LinkBase, row: SubscriberRow) {
  return toSubscriber(ctx, base, row, await unlockedRewardsOf(db, ctx.program.id, [Number(row.id)]));
}

export async function serializeMany(
  db: Kysely<DB>,
  ctx: ProgramContext,
  base: LinkBase,
  rows: SubscriberRow[],
) {
  const rewards = await unlockedRewardsOf(
    db,
    ctx.program.id,
    rows.map((row) => Number(row.id)),
  );
  return rows.map((row) => toSubscriber(ctx, base, row, rewards));
}

/** A `{id|email}` path segment: the subscriber with that id, else the one with that e-mail. */
export async function findBySegment(db: Kysely<DB>, programId: number, segment: string) {
  return (
    (await repository.findSubscriberBy(db, programId, 'public_id', segment)) ??
    (await repository.findSubscriberBy(db, programId, 'email_lower', segment.toLowerCase()))
  );
}

export async function findByRef(db: Kysely<DB>, programId: number, ref: { id?: string; email?: string }) {
  if (ref.id !== undefined) return repository.findSubscriberBy(db, programId, 'public_id', ref.id);
  if (ref.email !== undefined)
    return repository.findSubscriberBy(db, programId, 'email_lower', ref.email.toLowerCase());
  return undefined;
}
