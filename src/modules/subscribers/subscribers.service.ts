import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ProgramContext } from '../../context.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError } from '../../core/errors.ts';
import { exceptRule } from '../../core/fraud.ts';
import { newKey, randomAlphanumeric } from '../../core/ids.ts';
import { insertOrReplay } from '../../core/insert-or-replay.ts';
import {
  countsAsReferral,
  heldWindow,
  noWindow,
  openingWindow,
  windowedReferralChange,
} from '../../core/milestones.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { programMetrics } from '../../core/program-stats.ts';
import { nowTimestamp } from '../../core/time.ts';
import { uniqueViolationColumn } from '../../db/errors.ts';
import type { DB } from '../../db/tables.ts';
import { queueEmail, recordEvent } from '../../outbox/outbox.ts';
import { decideSignupFraud, fraudOutcomeOf, openFlags } from '../fraud/fraud.service.ts';
import { readProgram, recordProgramActivity } from '../program/program.service.ts';
import { closeEndedWindows, pendingDaysOf, windowOf } from './subscribers.pending.ts';
import * as repository from './subscribers.repository.ts';
import type { CreateSubscriberBody, SubscriberChanges, UpdateSubscriberBody } from './subscribers.schemas.ts';
import { moveReferrerCount, welcomeEmail } from './subscribers.unlocks.ts';
import {
  findByRef,
  findBySegment,
  type LinkBase,
  type Subscriber,
  type SubscriberRow,
  serialize,
  serializeMany,
  subscriberNotFound,
} from './subscribers.wire.ts';

export type { SubscriberRow } from './subscribers.repository.ts';

/** What a create request says, canonically: the same request again replays the stored subscriber. */
function requestDigest(body: CreateSubscriberBody): string {
  const canonical = [
    body.email.toLowerCase(),
    body.id ?? null,
    body.name ?? null,
    body.tos === undefined ? null : booleanOf(body.tos, false),
    body.marketing_consent === undefined ? null : booleanOf(body.marketing_consent, false),
    booleanOf(body.approved, true),
    body.status ?? 'active',
    body.referral?.id ?? null,
    body.referral?.email?.toLowerCase() ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/** A unique violation of a subscriber write as a 422 on its field (`prefix`: `update.` when wrapped). */
function takenError(error: unknown, prefix = ''): unknown {
  const column = uniqueViolationColumn(error);
  const field = column === 'email_lower' ? 'email' : column === 'public_id' ? 'id' : undefined;
  return field === undefined ? error : fieldError(`${prefix}${field}`, 'taken');
}

export interface CreateOutcome {
  subscriber: Subscriber;
  /** False when the same request was stored before and is answered again (insert-or-replay). */
  created: boolean;
}

/** `POST /v1/subscribers` (and the share page's form). */
export async function createSubscriber(
  ctx: ProgramContext,
  body: CreateSubscriberBody,
  base: LinkBase,
  options: { welcomeEmail?: boolean } = {},
): Promise<CreateOutcome> {
  const ref = body.referral;
  const emailLower = body.email.toLowerCase();
  const selfReferral =
    ref !== undefined &&
    ((ref.email !== undefined && ref.email.toLowerCase() === emailLower) ||
      (ref.id !== undefined && body.id !== undefined && ref.id === body.id));
  if (selfReferral) throw fieldError('referral', 'refused', 'A subscriber cannot refer itself.');
  const digest = requestDigest(body);
  const programId = ctx.program.id;
  try {
    // On SQLite concurrent creates share one commit, each in its own savepoint (db/write-batcher.ts).
    return await ctx.database.inWriteTransaction(async (trx) => {
      const now = nowTimestamp(ctx.clock);
      let referrer: SubscriberRow | undefined;
      if (ref !== undefined && (ref.id !== undefined || ref.email !== undefined)) {
        referrer = await findByRef(trx, programId, ref);
        if (!referrer) throw fieldError('referral', 'invalid');
      }
      // The fraud rules (core/fraud.ts; self-referral is refused above): a block drops the
      // referrer, a flag holds the referral until a person decides.
      const owner = referrer && {
        kind: 'subscriber' as const,
        id: Number(referrer.id),
        ref: referrer.public_id,
        email: referrer.email,
      };
      const decision = owner
        ? exceptRule(
            await decideSignupFraud(trx, ctx, { email: body.email, owner, context: body.context, at: now }),
            'self_referral',
          )
        : undefined;
      if (decision?.blocked) referrer = undefined;
      const held = referrer !== undefined && decision !== undefined && decision.fired.length > 0;
      // A referral waits `referral_pending_days` before it counts (subscribers.pending.ts).
      const window = held
        ? heldWindow
        : referrer
          ? openingWindow(await pendingDaysOf(trx, programId), ctx.clock.nowMicros())
          : noWindow;
      const values = {
        program_id: programId,
        public_id: body.id ?? newKey(),
        email: body.email,
        email_lower: emailLower,
        name: body.name ?? null,
        tos: body.tos === undefined ? null : booleanOf(body.tos, false),
        marketing_consent:
          body.marketing_consent === undefined ? null : booleanOf(body.marketing_consent, false),
        approved: booleanOf(body.approved, true),
        status: body.status ?? 'active',
        code: newKey(),
        secret: randomAlphanumeric(32),
        is_referred: referrer !== undefined,
        referrer_id: referrer ? Number(referrer.id) : null,
        request_digest: digest,
        referral_pending_until: window.pendingUntil,
        referral_lapsed_at: null,
        created_at: now,
        updated_at: now,
      };
      const outcome = await insertOrReplay({
        find: () => repository.findSubscriberBy(trx, programId, 'email_lower', emailLower),
        insert: async () => {
          const row = await repository.insertSubscriberIfFree(trx, values);
          if (row) return row;
          // Not the e-mail (insertOrReplay looks that up next): the id, when it is taken.
          const emailTaken = await repository.findSubscriberBy(trx, programId, 'email_lower', emailLower);
          if (!emailTaken && body.id !== undefined) {
            const idTaken = await repository.findSubscriberBy(trx, programId, 'public_id', body.id);
            if (idTaken) throw fieldError('id', 'taken');
          }
          return undefined;
        },
        sameRequest: (stored) => stored.request_digest === digest,
        taken: () => fieldError('email', 'taken'),
      });
      if ('replayed' in outcome)
        return { subscriber: await serialize(trx, ctx, base, outcome.replayed), created: false };
      const row = outcome.created;
      const flags =
        held && owner && decision
          ? await openFlags(
              trx,
              ctx,
              decision,
              { kind: 'subscriber', id: Number(row.id), ref: row.public_id },
              owner,
            )
          : [];
      await recordProgramActivity(trx, programId, now, {
        [programMetrics.customers]: 1,
        [programMetrics.referredCustomers]: referrer ? 1 : 0,
      });
      if (referrer && window.pendingUntil === null) {
        const delta = countsAsReferral({ status: row.status, approved: Boolean(row.approved) }) ? 1 : 0;
        await moveReferrerCount(trx, ctx, base, Number(referrer.id), delta, now);
      }
      const stored = await serialize(trx, ctx, base, row);
      await recordEvent(trx, programId, 'subscriber.created', stored, now);
      const fraud = decision && fraudOutcomeOf(decision, flags);
      const subscriber = fraud === undefined ? stored : { ...stored, fraud };
      if (options.welcomeEmail) {
        const program = await readProgram(trx, programId);
        await queueEmail(trx, programId, welcomeEmail(program?.name ?? 'Newsletter', subscriber), now);
      }
      return { subscriber, created: true };
    });
  } catch (error) {
    throw takenError(error);
  }
}

export async function getSubscriber(ctx: ProgramContext, segment: string, base: LinkBase) {
  await closeEndedWindows(ctx, base);
  const db = ctx.database.db;
  const row = await findBySegment(db, ctx.program.id, segment);
  if (!row) throw subscriberNotFound();
  return serialize(db, ctx, base, row);
}

const referStatusFilter: Record<string, boolean> = { referred: true, non_referred: false };

/** `GET /v1/subscribers`: an unknown `refer_status` answers 404, as the spec says. */
export async function listSubscribers(
  ctx: ProgramContext,
  query: PageRequest & { refer_status?: string },
  base: LinkBase,
) {
  let isReferred: boolean | undefined;
  if (query.refer_status !== undefined) {
    isReferred = referStatusFilter[query.refer_status];
    if (isReferred === undefined)
      throw new AppError('not_found', 'Invalid refer_status: use referred or non_referred.');
  }
  await closeEndedWindows(ctx, base);
  const db = ctx.database.db;
  const rows = await repository.listSubscribers(
    db,
    ctx.program.id,
    isReferred === undefined ? {} : { isReferred },
    pageWindow(query),
    query.sort,
  );
  return serializeMany(db, ctx, base, rows);
}

export async function searchSubscribers(
  ctx: ProgramContext,
  query: PageRequest & { id?: string; email?: string },
  base: LinkBase,
) {
  await closeEndedWindows(ctx, base);
  const db = ctx.database.db;
  const rows = await repository.listSubscribers(
    db,
    ctx.program.id,
    {
      ...(query.id !== undefined ? { publicId: query.id } : {}),
      ...(query.email !== undefined ? { emailLower: query.email.toLowerCase() } : {}),
    },
    pageWindow(query),
    query.sort,
  );
  return serializeMany(db, ctx, base, rows);
}

async function getForRequestOrThrow(
  db: Kysely<DB>,
  programId: number,
  segment: string | undefined,
  ref: { id?: string; email?: string },
) {
  if (segment !== undefined) {
    const row = await findBySegment(db, programId, segment);
    if (!row) throw subscriberNotFound();
    return row;
  }
  if (ref.id === undefined && ref.email === undefined) throw fieldError('id', 'required');
  const row = await findByRef(db, programId, ref);
  if (!row) throw subscriberNotFound();
  return row;
}

/** Splits an update body: the identifier (`id` or `email`, body form only) and the changes. */
function splitBody(segment: string | undefined, body: UpdateSubscriberBody) {
  const { update, ...flat } = body;
  if (update !== undefined) {
    const ref =
      segment === undefined
        ? { ...(flat.id ? { id: flat.id } : flat.email ? { email: flat.email } : {}) }
        : {};
    return { ref, changes: update as SubscriberChanges, prefix: 'update.' };
  }
  if (segment !== undefined) return { ref: {}, changes: flat as SubscriberChanges, prefix: '' };
  // Flat and named in the body: the identifier is not a change.
  if (flat.id !== undefined) {
    const { id, ...changes } = flat;
    return { ref: { id }, changes: changes as SubscriberChanges, prefix: '' };
  }
  if (flat.email !== undefined) {
    const { email, ...changes } = flat;
    return { ref: { email }, changes: changes as SubscriberChanges, prefix: '' };
  }
  return { ref: {}, changes: flat as SubscriberChanges, prefix: '' };
}

/** `PUT /v1/subscribers/{id|email}` or `PUT /v1/subscribers` with `id` or `email`; status moves in any order. */
export async function updateSubscriber(
  ctx: ProgramContext,
  segment: string | undefined,
  body: UpdateSubscriberBody,
  base: LinkBase,
) {
  const { ref, changes, prefix } = splitBody(segment, body);
  const programId = ctx.program.id;
  try {
    return await ctx.database.db.transaction().execute(async (trx) => {
      const now = nowTimestamp(ctx.clock);
      const row = await getForRequestOrThrow(trx, programId, segment, ref);
      const values: Parameters<typeof repository.updateSubscriber>[3] = { updated_at: now };
      if (changes.email !== undefined) {
        values.email = changes.email;
        values.email_lower = changes.email.toLowerCase();
      }
      if (changes.name !== undefined) values.name = changes.name;
      if (changes.id !== undefined) values.public_id = changes.id;
      if (changes.tos !== undefined) values.tos = booleanOf(changes.tos, false);
      if (changes.marketing_consent !== undefined)
        values.marketing_consent = booleanOf(changes.marketing_consent, false);
      if (changes.approved !== undefined) values.approved = booleanOf(changes.approved, true);
      if (changes.status !== undefined) values.status = changes.status;
      const before = { status: row.status, approved: Boolean(row.approved) };
      const after = {
        status: values.status ?? row.status,
        approved: Boolean(values.approved ?? row.approved),
      };
      const change =
        row.referrer_id === null ? undefined : windowedReferralChange(windowOf(row), before, after, now);
      if (change) {
        values.referral_pending_until = change.window.pendingUntil;
        values.referral_lapsed_at = change.window.lapsedAt;
      }
      const written = await repository.updateSubscriberUnlessTaken(trx, programId, Number(row.id), values);
      if ('taken' in written) throw fieldError(`${prefix}${written.taken}`, 'taken');
      const updated = written.updated;
      if (change && row.referrer_id !== null)
        await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), change.delta, now);
      const subscriber = await serialize(trx, ctx, base, updated);
      await recordEvent(trx, programId, 'subscriber.updated', subscriber, now);
      return subscriber;
    });
  } catch (error) {
    throw takenError(error, prefix);
  }
}

/** `DELETE /v1/subscribers/{id|email}` or with `id` or `email` in the body: permanent. */
export async function deleteSubscriber(
  ctx: ProgramContext,
  segment: string | undefined,
  ref: { id?: string; email?: string },
  base: LinkBase,
) {
  const programId = ctx.program.id;
  await ctx.database.db.transaction().execute(async (trx) => {
    const now = nowTimestamp(ctx.clock);
    const row = await getForRequestOrThrow(trx, programId, segment, ref);
    const subscriber = await serialize(trx, ctx, base, row);
    await recordProgramActivity(trx, programId, row.created_at, {
      [programMetrics.customers]: -1,
      [programMetrics.referredCustomers]: row.is_referred ? -1 : 0,
    });
    if (Number(row.referrals_count) > 0)
      await recordProgramActivity(trx, programId, now, { [programMetrics.referringCustomers]: -1 });
    if (row.referrer_id !== null) {
      const before = { status: row.status, approved: Boolean(row.approved) };
      const { delta } = windowedReferralChange(windowOf(row), before, undefined, now);
      await moveReferrerCount(trx, ctx, base, Number(row.referrer_id), delta, now);
    }
    await repository.deleteSubscriber(trx, programId, Number(row.id));
    await recordEvent(trx, programId, 'subscriber.deleted', subscriber, now);
  });
}

// The public pages' side (share page, portal) is subscribers.pages.service.ts.

export { closeEndedWindowsOfAllPrograms, endReferralHold } from './subscribers.pending.ts';
export { unlockForSubscribersPast } from './subscribers.unlocks.ts';
export type { LinkBase, Subscriber } from './subscribers.wire.ts';
