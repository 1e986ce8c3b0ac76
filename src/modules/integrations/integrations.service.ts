import type { Deps, ProgramContext } from '../../context.ts';
import type { BillingProvider } from '../../core/billing.ts';
import { booleanOf } from '../../core/booleans.ts';
import { AppError, fieldError, notFound } from '../../core/errors.ts';
import { ShortCache } from '../../core/short-cache.ts';
import { millisOn, nowTimestamp } from '../../core/time.ts';
import { rerunStoredEvent } from './integrations.events.ts';
import type { EventRow, IntegrationRow } from './integrations.repository.ts';
import * as repository from './integrations.repository.ts';
import type { ListBillingEventsQuery, SaveIntegrationBody } from './integrations.schemas.ts';
import { retriedStatuses } from './integrations.tables.ts';

/** The server's start loads the processors' libraries ahead of the first event (see integrations.verify.ts). */
export { warmUpVerifiers } from './integrations.verify.ts';

/**
 * `/v1/integrations…`: a program's processor settings and the log of what processors sent. The
 * webhook secret is sealed with the server key, like webhook signing secrets, and never returned.
 */

/**
 * How long a delivery may act on an integration as it was read (its switch and opened secret):
 * deliveries come far more often than settings change. A change through this process applies at
 * once; one through another process (or the CLI) within this bound.
 */
export const DELIVERY_INTEGRATION_CACHE_MS = 1000;

/** Per app (keyed by its database handle): program ids are only unique within one database. */
const deliveryCaches = new WeakMap<Deps['database'], ShortCache<string, string | undefined>>();

function deliveryCache({ database, clock }: Pick<Deps, 'database' | 'clock'>) {
  let cache = deliveryCaches.get(database);
  if (!cache) {
    cache = new ShortCache({ ttlMs: DELIVERY_INTEGRATION_CACHE_MS, capacity: 10_000, now: millisOn(clock) });
    deliveryCaches.set(database, cache);
  }
  return cache;
}

/** The opened webhook secret of an integration that is on; undefined when it is off or not set up. */
export function deliverySecret(deps: Deps, programId: number, provider: BillingProvider) {
  return deliveryCache(deps).get(`${programId}:${provider}`, async () => {
    const row = await repository.findIntegration(deps.database.db, programId, provider);
    return row?.active ? deps.secrets.open(row.secret) : undefined;
  });
}

export function endpointPath(provider: BillingProvider, programPublicId: string) {
  return `/integrations/${provider}/${programPublicId}`;
}

function present(ctx: ProgramContext, row: IntegrationRow, baseUrl: string) {
  return {
    provider: row.provider,
    active: Boolean(row.active),
    endpoint_url: `${baseUrl}${endpointPath(row.provider, ctx.program.publicId)}`,
    secret_hint: row.secret_hint,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentEvent(row: EventRow) {
  return {
    id: Number(row.id),
    provider: row.provider,
    event_id: row.event_id,
    type: row.type,
    status: row.status,
    reason: row.reason,
    transaction_key: row.transaction_key,
    customer_key: row.customer_key,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function listIntegrations(ctx: ProgramContext, links: { baseUrl: string }) {
  const rows = await repository.listIntegrations(ctx.database.db, ctx.program.id);
  return rows.map((row) => present(ctx, row, links.baseUrl));
}

/** The provider a path names; one Vouch does not know answers like a missing integration. */
function knownProvider(segment: string): BillingProvider {
  if (segment === 'stripe' || segment === 'paddle') return segment;
  throw notFound('Integration');
}

export async function getIntegration(ctx: ProgramContext, segment: string, links: { baseUrl: string }) {
  const provider = knownProvider(segment);
  const row = await repository.findIntegration(ctx.database.db, ctx.program.id, provider);
  if (!row) throw notFound('Integration');
  return present(ctx, row, links.baseUrl);
}

/** `PUT /v1/integrations/{provider}`: creates the integration, or changes its secret or switch. */
export async function saveIntegration(
  ctx: ProgramContext,
  segment: string,
  body: SaveIntegrationBody,
  links: { baseUrl: string },
) {
  const provider = knownProvider(segment);
  const db = ctx.database.db;
  const now = nowTimestamp(ctx.clock);
  const secret = body.webhook_secret;
  if (secret === undefined) {
    const updated = await repository.updateIntegration(db, ctx.program.id, provider, {
      ...(body.active !== undefined ? { active: booleanOf(body.active, true) } : {}),
      updated_at: now,
    });
    deliveryCaches.get(ctx.database)?.clear();
    // Without a secret, a PUT changes an integration that exists; there is nothing to switch otherwise.
    if (!updated) throw notFound('Integration');
    return present(ctx, updated, links.baseUrl);
  }
  const existing = await repository.findIntegration(db, ctx.program.id, provider);
  const row = await repository.saveIntegration(db, {
    program_id: ctx.program.id,
    provider,
    secret: ctx.secrets.seal(secret),
    secret_hint: secret.slice(-4),
    active: booleanOf(body.active, existing ? Boolean(existing.active) : true),
    created_at: now,
    updated_at: now,
  });
  deliveryCaches.get(ctx.database)?.clear();
  return present(ctx, row, links.baseUrl);
}

export async function deleteIntegration(ctx: ProgramContext, segment: string) {
  const provider = knownProvider(segment);
  const deleted = await repository.deleteIntegration(ctx.database.db, ctx.program.id, provider);
  deliveryCaches.get(ctx.database)?.clear();
  if (!deleted) throw notFound('Integration');
}

export async function listIntegrationEvents(ctx: ProgramContext, query: ListBillingEventsQuery) {
  const rows = await repository.listEvents(
    ctx.database.db,
    ctx.program.id,
    { provider: query.provider, status: query.status },
    query,
  );
  return rows.map(presentEvent);
}

/**
 * `POST /v1/integrations/events/{id}/retry`: runs a `failed` or `unattributed` event again from
 * its stored payload (after the owner linked the customer, say) and answers it as the log shows it.
 */
export async function retryIntegrationEvent(ctx: ProgramContext, segment: string) {
  const db = ctx.database.db;
  // Ids are positive safe integers; anything else names no event.
  const id = /^[1-9]\d{0,14}$/.test(segment) ? Number(segment) : undefined;
  const row = id === undefined ? undefined : await repository.findEventById(db, ctx.program.id, id);
  if (!row) throw notFound('Event');
  const outcome = await rerunStoredEvent(ctx, row.provider, row.id, retriedStatuses);
  if (!outcome) {
    throw fieldError(
      'id',
      'refused',
      `Only failed or unattributed events can be retried; this one is ${row.status}.`,
    );
  }
  const after = await repository.findEventById(db, ctx.program.id, Number(row.id));
  if (!after) throw new AppError('not_found', 'Event not found.');
  return presentEvent(after);
}
