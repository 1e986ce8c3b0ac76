import { type Insertable, type Kysely, sql, type Updateable } from 'kysely';
import type { BillingProvider } from '../../core/billing.ts';
import { type PageRequest, pageWindow } from '../../core/pages.ts';
import { pageInCreationOrder } from '../../db/creation-order.ts';
import type { DB } from '../../db/tables.ts';
import type {
  BillingEventStatus,
  BillingEventsTable,
  BillingIntegrationsTable,
} from './integrations.tables.ts';
import './integrations.tables.ts';

// ---- integrations (one per program and processor) ----

const integrationColumns = [
  'provider',
  'secret',
  'secret_hint',
  'active',
  'created_at',
  'updated_at',
] as const;

export type IntegrationRow = Awaited<ReturnType<typeof findIntegration>> & {};

export function findIntegration(db: Kysely<DB>, programId: number, provider: BillingProvider) {
  return db
    .selectFrom('billing_integrations')
    .select(integrationColumns)
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

export function listIntegrations(db: Kysely<DB>, programId: number) {
  return db
    .selectFrom('billing_integrations')
    .select(integrationColumns)
    .where('program_id', '=', programId)
    .orderBy('provider')
    .execute();
}

/** Creates the integration, or replaces its secret and switch (created_at stays). */
export function saveIntegration(db: Kysely<DB>, values: Insertable<BillingIntegrationsTable>) {
  return db
    .insertInto('billing_integrations')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['program_id', 'provider']).doUpdateSet({
        secret: values.secret,
        secret_hint: values.secret_hint,
        active: values.active,
        updated_at: values.updated_at,
      }),
    )
    .returning(integrationColumns)
    .executeTakeFirstOrThrow();
}

export function updateIntegration(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  values: Updateable<BillingIntegrationsTable>,
) {
  return db
    .updateTable('billing_integrations')
    .set(values)
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .returning(integrationColumns)
    .executeTakeFirst();
}

export async function deleteIntegration(db: Kysely<DB>, programId: number, provider: BillingProvider) {
  const result = await db
    .deleteFrom('billing_integrations')
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---- received events ----

const eventColumns = [
  'id',
  'provider',
  'event_id',
  'type',
  'status',
  'reason',
  'payload',
  'transaction_key',
  'customer_key',
  'processor_customer',
  'awaits',
  'once_id',
  'created_at',
  'updated_at',
] as const;

export type EventRow = Awaited<ReturnType<typeof findEvent>> & {};

/** Inserts the event as `processing`; undefined when this processor event id is stored already. */
export function claimEvent(db: Kysely<DB>, values: Insertable<BillingEventsTable>) {
  return db
    .insertInto('billing_events')
    .values(values)
    .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'event_id']).doNothing())
    .returning(eventColumns)
    .executeTakeFirst();
}

export function findEvent(db: Kysely<DB>, programId: number, provider: BillingProvider, eventId: string) {
  return db
    .selectFrom('billing_events')
    .select(eventColumns)
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
}

export function findEventById(db: Kysely<DB>, programId: number, id: number) {
  return db
    .selectFrom('billing_events')
    .select(eventColumns)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Takes an event to run it (again): one whose status is one of `from`, or one left `processing`
 * since before `staleBefore` (its run ended without a word, say the process stopped). Undefined
 * when another run holds it or it is settled.
 */
export function takeEvent(
  db: Kysely<DB>,
  programId: number,
  id: number,
  from: readonly BillingEventStatus[],
  staleBefore: string,
  now: string,
) {
  return db
    .updateTable('billing_events')
    .set({ status: 'processing', updated_at: now })
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        ...(from.length > 0 ? [eb('status', 'in', from)] : []),
        eb.and([eb('status', '=', 'processing'), eb('updated_at', '<', staleBefore)]),
      ]),
    )
    .returning(eventColumns)
    .executeTakeFirst();
}

export async function finishEvent(
  db: Kysely<DB>,
  programId: number,
  id: number,
  values: Updateable<BillingEventsTable>,
) {
  await db
    .updateTable('billing_events')
    .set(values)
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .execute();
}

/** Forgets a claim whose run met a passing fault, so the processor's retry runs it. */
export async function releaseEvent(db: Kysely<DB>, programId: number, id: number) {
  await db
    .deleteFrom('billing_events')
    .where('program_id', '=', programId)
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .execute();
}

export interface EventFilter {
  provider?: BillingProvider | undefined;
  status?: BillingEventStatus | undefined;
}

export function listEvents(db: Kysely<DB>, programId: number, filter: EventFilter, page: PageRequest) {
  const { offset, fetch } = pageWindow(page);
  let query = db.selectFrom('billing_events').select(eventColumns).where('program_id', '=', programId);
  if (filter.provider) query = query.where('provider', '=', filter.provider);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query.$call(pageInCreationOrder(page.sort, { offset, fetch })).execute();
}

/** Refunds that arrived before their sale and wait for one of `refs`. */
export function listPendingRefunds(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  refs: readonly string[],
) {
  return db
    .selectFrom('billing_events')
    .select(['id'])
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .where('awaits', 'in', refs)
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
}

/** Integrations (program and provider) after `after` in program order, `limit` of them: the worker's sweep. */
export function listIntegrationsAfter(
  db: Kysely<DB>,
  after: { programId: number; provider: BillingProvider } | undefined,
  limit: number,
) {
  let query = db.selectFrom('billing_integrations').select(['program_id', 'provider']);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('program_id', '>', after.programId),
        eb.and([eb('program_id', '=', after.programId), eb('provider', '>', after.provider)]),
      ]),
    );
  }
  return query.orderBy('program_id').orderBy('provider').limit(limit).execute();
}

/**
 * Refunds still `pending` although an id they wait for is stored now: left by a sale whose ids
 * were committed just after the refund looked for them, or by a process stopped between a sale
 * and the run of its waiting refunds. Oldest first, `limit` of them.
 */
export function listStrandedRefunds(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  limit: number,
) {
  return (
    db
      .selectFrom('billing_events as e')
      .select('e.id')
      .where('e.program_id', '=', programId)
      .where('e.provider', '=', provider)
      .where('e.awaits', 'is not', null)
      // A literal, as for unattributed events: SQLite plans a bound status anew on every run.
      .where('e.status', '=', sql.lit('pending'))
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('billing_sale_refs as r')
            .select(sql.lit(1).as('one'))
            .whereRef('r.program_id', '=', 'e.program_id')
            .whereRef('r.provider', '=', 'e.provider')
            .whereRef('r.ref', '=', 'e.awaits'),
        ),
      )
      .orderBy('e.id')
      .limit(limit)
      .execute()
  );
}

/** Unattributed events of a processor customer: a customer linked since may attribute them. */
export function listUnattributedOf(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  processorCustomer: string,
) {
  return (
    db
      .selectFrom('billing_events')
      .select(['id'])
      .where('program_id', '=', programId)
      .where('provider', '=', provider)
      .where('processor_customer', '=', processorCustomer)
      // A literal, so SQLite reads the partial index of unattributed events (migration 0038).
      .where('status', '=', sql.lit('unattributed'))
      .orderBy('id')
      .execute()
  );
}

/** Whether another event already refunded this object (a Paddle adjustment, a Stripe dispute). */
export async function refundedOnce(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  onceId: string,
  exceptId: number,
) {
  const row = await db
    .selectFrom('billing_events')
    .select('id')
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .where('once_id', '=', onceId)
    .where('status', '=', 'processed')
    .where('id', '!=', exceptId)
    .executeTakeFirst();
  return row !== undefined;
}

// ---- the sales recorded from events ----

export async function recordSale(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  sale: { key: string; amountMicros: bigint; refs: readonly string[] },
) {
  await db
    .insertInto('billing_sales')
    .values({
      program_id: programId,
      provider,
      transaction_key: sale.key,
      amount: sale.amountMicros,
      refunded: 0,
    })
    .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'transaction_key']).doNothing())
    .execute();
  const refs = [...new Set([sale.key, ...sale.refs])];
  await db
    .insertInto('billing_sale_refs')
    .values(refs.map((ref) => ({ program_id: programId, provider, ref, transaction_key: sale.key })))
    .onConflict((conflict) => conflict.columns(['program_id', 'provider', 'ref']).doNothing())
    .execute();
}

/** The sale a refund names, by the first of its ids that is known. */
export async function findSaleByRefs(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  refs: readonly string[],
) {
  if (refs.length === 0) return undefined;
  const rows = await db
    .selectFrom('billing_sale_refs')
    .innerJoin('billing_sales', (join) =>
      join
        .onRef('billing_sales.program_id', '=', 'billing_sale_refs.program_id')
        .onRef('billing_sales.provider', '=', 'billing_sale_refs.provider')
        .onRef('billing_sales.transaction_key', '=', 'billing_sale_refs.transaction_key'),
    )
    .select([
      'billing_sale_refs.ref',
      'billing_sales.transaction_key',
      'billing_sales.amount',
      'billing_sales.refunded',
    ])
    .where('billing_sale_refs.program_id', '=', programId)
    .where('billing_sale_refs.provider', '=', provider)
    .where('billing_sale_refs.ref', 'in', refs)
    .execute();
  return refs.map((ref) => rows.find((row) => row.ref === ref)).find((row) => row !== undefined);
}

/** Moves what refunds took from `from` to `to`, only if no other refund moved it meanwhile. */
export async function moveRefunded(
  db: Kysely<DB>,
  programId: number,
  provider: BillingProvider,
  key: string,
  from: bigint,
  to: bigint,
) {
  const result = await db
    .updateTable('billing_sales')
    .set({ refunded: to })
    .where('program_id', '=', programId)
    .where('provider', '=', provider)
    .where('transaction_key', '=', key)
    .where('refunded', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
