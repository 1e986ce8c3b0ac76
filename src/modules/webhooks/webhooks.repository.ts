import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import type { PageRequest } from '../../core/pages.ts';
import { pageWindow } from '../../core/pages.ts';
import { isPostgres } from '../../db/counter-slots.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import { claimUnlocked } from '../../db/locks.ts';
import type { DB } from '../../db/tables.ts';
import type {
  DeliveryStatus,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from './webhooks.tables.ts';
import './webhooks.tables.ts';

export type WebhookRow = Awaited<ReturnType<typeof findWebhookByKey>> & {};

const webhookColumns = [
  'id',
  'program_id',
  'key',
  'name',
  'url',
  'is_active',
  'signature',
  'events',
  'created_at',
] as const;

/** The new webhook, or undefined when its key is taken: nothing is raised in the database (ADR 0053). */
export async function insertWebhook(db: Kysely<DB>, values: Insertable<WebhooksTable>) {
  return db
    .insertInto('webhooks')
    .values(values)
    .onConflict((conflict) => conflict.doNothing())
    .returning(webhookColumns)
    .executeTakeFirst();
}

export async function findWebhookByKey(db: Kysely<DB>, programId: number, key: string) {
  return db
    .selectFrom('webhooks')
    .select(webhookColumns)
    .where('program_id', '=', programId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function listWebhooks(db: Kysely<DB>, programId: number, page: PageRequest) {
  const { offset, fetch } = pageWindow(page);
  return db
    .selectFrom('webhooks')
    .select(webhookColumns)
    .where('program_id', '=', programId)
    .$call(pageInCreationOrder(page.sort, { offset, fetch }))
    .execute();
}

export async function updateWebhook(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<WebhooksTable>,
) {
  return db
    .updateTable('webhooks')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .returning(webhookColumns)
    .executeTakeFirst();
}

export async function deleteWebhook(db: Kysely<DB>, programId: number, id: number) {
  await db.deleteFrom('webhooks').where('program_id', '=', programId).where('id', '=', id).execute();
}

/** Webhooks by id, for the deliveries a worker has claimed (any program: the worker is global). */
export async function findWebhooksByIds(db: Kysely<DB>, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('webhooks').select(webhookColumns).where('id', 'in', ids).execute();
}

// ---- fan-out: outbox events → deliveries ----

/**
 * Takes the oldest undispatched events. On PostgreSQL the rows stay locked until the caller's
 * transaction ends and other workers skip them; SQLite has one writer at a time anyway.
 */
export async function lockUndispatchedEvents(trx: Kysely<DB>, limit: number) {
  const query = trx
    .selectFrom('events')
    .select(['id', 'program_id', 'event', 'payload', 'created_at'])
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(limit);
  return claimUnlocked(trx, query).execute();
}

export async function activeWebhooksOfPrograms(trx: Kysely<DB>, programIds: number[]) {
  if (programIds.length === 0) return [];
  return trx
    .selectFrom('webhooks')
    .select(['id', 'program_id', 'key', 'url', 'events'])
    .where('program_id', 'in', programIds)
    .where('is_active', '=', true)
    .execute();
}

// Bound parameters per statement stay far below SQLite's and PostgreSQL's limits.
const INSERT_CHUNK = 500;

export async function insertDeliveries(trx: Kysely<DB>, rows: Insertable<WebhookDeliveriesTable>[]) {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

export async function insertDelivery(db: Kysely<DB>, row: Insertable<WebhookDeliveriesTable>) {
  return db.insertInto('webhook_deliveries').values(row).returning(['id']).executeTakeFirstOrThrow();
}

export async function markEventsDispatched(trx: Kysely<DB>, ids: number[], at: string) {
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    await trx
      .updateTable('events')
      .set({ dispatched_at: at })
      .where('id', 'in', ids.slice(i, i + INSERT_CHUNK))
      .execute();
  }
}

// ---- claims and results ----

const claimedColumns = [
  'id',
  'program_id',
  'webhook_id',
  'public_id',
  'event',
  'body',
  'is_test',
  'attempts',
] as const;

/**
 * Claims due deliveries: `sending` until `leaseUntil`. A claim whose worker died (kill -9) falls
 * due again when its lease runs out, so every pending delivery is sent at least once. On
 * PostgreSQL concurrent workers skip each other's locked rows and never claim the same one.
 */
export async function claimDueDeliveries(db: Kysely<DB>, now: string, leaseUntil: string, limit: number) {
  const due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    // A literal, not bound parameters: SQLite uses the partial index only when the query repeats
    // its predicate word for word.
    .where(sql<boolean>`status in ('pending', 'sending')`)
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit);
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', next_attempt_at: leaseUntil, updated_at: now })
    .where('id', 'in', claimUnlocked(db, due))
    .where('status', 'in', ['pending', 'sending'])
    .where('next_attempt_at', '<=', now)
    .returning(claimedColumns)
    .execute();
}

/** Claims one delivery for an immediate attempt, unless a worker is sending it right now. */
export async function claimDelivery(db: Kysely<DB>, id: number, now: string, leaseUntil: string) {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', next_attempt_at: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('status', '!=', 'sending'), eb('next_attempt_at', '<=', now)]))
    .returning(claimedColumns)
    .executeTakeFirst();
}

export type ClaimedDelivery = Awaited<ReturnType<typeof claimDueDeliveries>>[number];

export interface DeliveryResult {
  deliveryId: number;
  programId: number;
  webhookId: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  at: string;
  /** The attempt to log, when a request was made (or refused by the guard). */
  attempt?: Omit<Insertable<WebhookAttemptsTable>, 'delivery_id' | 'program_id' | 'webhook_id'>;
  /** The receiver answered 410: turn the webhook off. */
  disableWebhook?: string;
}

/**
 * Sets the outcome of claimed deliveries (only those still `sending`: one deleted with its webhook
 * meanwhile is gone); answers the ids it updated. PostgreSQL gets one statement per chunk rather
 * than a round trip per delivery; SQLite, in-process, runs the plain updates.
 */
async function updateDeliveries(trx: Kysely<DB>, results: DeliveryResult[]): Promise<Set<number>> {
  const updated = new Set<number>();
  if (!isPostgres(trx)) {
    for (const result of results) {
      const row = await trx
        .updateTable('webhook_deliveries')
        .set({
          status: result.status,
          attempts: result.attempts,
          next_attempt_at: result.nextAttemptAt,
          last_error: result.lastError,
          updated_at: result.at,
        })
        .where('id', '=', result.deliveryId)
        .where('status', '=', 'sending')
        .returning('id')
        .executeTakeFirst();
      if (row) updated.add(row.id);
    }
    return updated;
  }
  for (let i = 0; i < results.length; i += INSERT_CHUNK) {
    const rows = results
      .slice(i, i + INSERT_CHUNK)
      .map(
        (r) =>
          sql`(${r.deliveryId}::bigint, ${r.status}::text, ${r.attempts}::integer, ${r.nextAttemptAt}::text, ${r.lastError}::text, ${r.at}::text)`,
      );
    const { rows: ids } = await sql<{ id: number }>`
      update webhook_deliveries as d
      set status = v.status, attempts = v.attempts, next_attempt_at = v.next_attempt_at,
          last_error = v.last_error, updated_at = v.updated_at
      from (values ${sql.join(rows)}) as v(id, status, attempts, next_attempt_at, last_error, updated_at)
      where d.id = v.id and d.status = 'sending'
      returning d.id`.execute(trx);
    for (const row of ids) updated.add(Number(row.id));
  }
  return updated;
}

/** Writes a batch of results in one transaction; answers the attempt id logged per delivery. */
export async function recordResults(db: Kysely<DB>, results: DeliveryResult[]): Promise<Map<number, number>> {
  const attemptIds = new Map<number, number>();
  if (results.length === 0) return attemptIds;
  await db.transaction().execute(async (trx) => {
    const updated = await updateDeliveries(trx, results);
    const attempts: Insertable<WebhookAttemptsTable>[] = [];
    const owners: number[] = [];
    for (const result of results) {
      if (!updated.has(result.deliveryId) || !result.attempt) continue;
      attempts.push({
        ...result.attempt,
        delivery_id: result.deliveryId,
        program_id: result.programId,
        webhook_id: result.webhookId,
      });
      owners.push(result.deliveryId);
    }
    for (let i = 0; i < attempts.length; i += INSERT_CHUNK) {
      const ids = await trx
        .insertInto('webhook_attempts')
        .values(attempts.slice(i, i + INSERT_CHUNK))
        .returning('id')
        .execute();
      for (const [n, row] of ids.entries()) {
        const owner = owners[i + n];
        if (owner !== undefined) attemptIds.set(owner, row.id);
      }
    }
    for (const result of results) {
      if (!result.disableWebhook) continue;
      await trx
        .updateTable('webhooks')
        .set({ is_active: false, disabled_reason: result.disableWebhook, updated_at: result.at })
        .where('id', '=', result.webhookId)
        .execute();
    }
  });
  return attemptIds;
}

// ---- the deliveries log ----

const attemptColumns = [
  'webhook_attempts.id',
  'webhook_deliveries.public_id as delivery_id',
  'webhook_deliveries.event',
  'webhook_deliveries.is_test',
  'webhook_attempts.attempt',
  'webhook_attempts.status',
  'webhook_attempts.response_code',
  'webhook_attempts.duration_ms',
  'webhook_attempts.error',
  'webhook_attempts.next_attempt_at',
  'webhook_attempts.created_at',
] as const;

export async function listAttempts(db: Kysely<DB>, programId: number, webhookId: number, page: PageRequest) {
  const { offset, fetch } = pageWindow(page);
  return db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select(attemptColumns)
    .where('webhook_attempts.program_id', '=', programId)
    .where('webhook_attempts.webhook_id', '=', webhookId)
    .orderBy('webhook_attempts.created_at', page.sort)
    .orderBy('webhook_attempts.id', page.sort)
    .limit(fetch)
    .offset(offset)
    .execute();
}

export async function findAttempt(db: Kysely<DB>, programId: number, attemptId: number) {
  return db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .select(attemptColumns)
    .where('webhook_attempts.program_id', '=', programId)
    .where('webhook_attempts.id', '=', attemptId)
    .executeTakeFirst();
}

export type AttemptRow = Awaited<ReturnType<typeof listAttempts>>[number];

export async function findDelivery(db: Kysely<DB>, programId: number, webhookId: number, publicId: string) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['id', 'status'])
    .where('program_id', '=', programId)
    .where('webhook_id', '=', webhookId)
    .where('public_id', '=', publicId)
    .executeTakeFirst();
}

/** Every webhook's stored secret, across programs (the sealing pass of webhooks.service.ts). */
export async function listWebhookSecrets(db: Kysely<DB>) {
  return db.selectFrom('webhooks').select(['id', 'program_id', 'signature']).orderBy('id').execute();
}

/** Replaces a stored secret if it is still the one read (a concurrent pass wins once). */
export async function replaceWebhookSecret(
  db: Kysely<DB>,
  programId: number,
  id: number,
  previous: string,
  next: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ signature: next })
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('signature', '=', previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
