import type { Kysely } from 'kysely';
import type { Deps, ProgramContext } from '../../context.ts';
import { canonicalAddress } from '../../core/fraud.ts';
import { formatTimestamp } from '../../core/time.ts';
import type { DB } from '../../db/tables.ts';
import * as repository from './fraud.sightings.repository.ts';

/**
 * `same_address` (issue 27): the addresses and click ids a partner or referrer used in its own
 * portal. Recorded when the owner uses the portal (signed in: every page passes through one
 * gate), at most once an hour per address; kept bounded (the owner's last `SIGHTINGS_KEPT`, and
 * none older than `SIGHTING_DAYS`). An address is kept only as a name the server's key makes
 * (`SecretBox.names`), so the table alone tells nobody where a partner was.
 */

/** Distinct addresses and clicks kept per owner: a partner's home, office, phone, with room. */
export const SIGHTINGS_KEPT = 20;
/** How long a sighting counts, as long as a click is kept. */
export const SIGHTING_DAYS = 90;
/** A sighting seen again within this time is not written again. */
const REFRESH_MS = 60 * 60 * 1000;

const ADDRESS_PURPOSE = 'fraud-portal-address';
/** What a `vouch_click` cookie holds (core/tracking.ts ids); anything else is not kept. */
const CLICK_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SightingOwner {
  kind: 'partner' | 'customer' | 'subscriber';
  id: number;
}

/** What a portal request showed of its browser: `request.ip` and the `vouch_click` cookie. */
export interface PortalVisit {
  ip: string | undefined;
  clickId: string | undefined;
}

/** The names of an address, one per server key (the sealing key's first). */
export const addressNamesOf = (deps: Pick<Deps, 'secrets'>, ip: string): string[] =>
  deps.secrets.names(ADDRESS_PURPOSE, canonicalAddress(ip));

/** Records what an owner's portal request showed: its address (named) and its click cookie. */
export async function recordPortalVisit(
  ctx: ProgramContext,
  owner: SightingOwner,
  visit: PortalVisit,
): Promise<void> {
  const db = ctx.database.db;
  const programId = ctx.program.id;
  const nowMicros = ctx.clock.nowMicros();
  const now = formatTimestamp(nowMicros);
  const fresh = formatTimestamp(nowMicros - REFRESH_MS * 1000);
  const sightings: repository.Sighting[] = [];
  const [address] = visit.ip ? addressNamesOf(ctx, visit.ip) : [];
  if (address !== undefined) sightings.push({ kind: 'address', value: address });
  if (visit.clickId !== undefined && CLICK_ID.test(visit.clickId))
    sightings.push({ kind: 'click', value: visit.clickId });
  let wrote = false;
  for (const sighting of sightings) {
    // Read first: a page view of an owner seen within the hour writes nothing.
    const last = await repository.findLastSeen(db, programId, owner, sighting);
    if (last !== undefined && last >= fresh) continue;
    await repository.upsertSighting(db, programId, owner, sighting, now);
    wrote = true;
  }
  if (wrote) await repository.capSightings(db, programId, owner, SIGHTINGS_KEPT);
}

/** What a signup's or a sale's `context` is looked up by in the sightings. */
export interface SightingLookup {
  addresses: string[];
  click: string | undefined;
}

export const sightingLookupOf = (
  deps: Pick<Deps, 'secrets'>,
  context: { ip?: string | undefined; click_id?: string | undefined } | undefined,
): SightingLookup => ({
  addresses: context?.ip !== undefined ? addressNamesOf(deps, context.ip) : [],
  click: context?.click_id,
});

export interface FoundSighting {
  kind: 'address' | 'click';
  value: string;
  owner: { kind: string; id: number };
}

/**
 * The sightings matching `lookup` (of `owner` when given; of any owner for a sale, which learns
 * its owner later), not older than `SIGHTING_DAYS`: one primary-key lookup.
 */
export async function findSightings(
  db: Kysely<DB>,
  ctx: ProgramContext,
  lookup: SightingLookup,
  owner?: { kind: string; id: number },
): Promise<FoundSighting[]> {
  const since = formatTimestamp(ctx.clock.nowMicros() - SIGHTING_DAYS * 86_400_000_000);
  const rows = await repository.findSightings(db, ctx.program.id, lookup, since, owner);
  return rows.map((row) => ({
    kind: row.kind,
    value: row.value,
    owner: { kind: row.owner_kind, id: Number(row.owner_id) },
  }));
}

/** The owner's sightings as the rule reads them (core/fraud.ts `ownerAddresses`, `ownerVisitors`). */
export function ownerSightingFacts(found: readonly FoundSighting[], owner: { kind: string; id: number }) {
  const own = found.filter((s) => s.owner.kind === owner.kind && s.owner.id === owner.id);
  return {
    ownerAddresses: own.filter((s) => s.kind === 'address').map((s) => s.value),
    ownerVisitors: own.filter((s) => s.kind === 'click').map((s) => s.value),
  };
}

/** The worker's sweep: sightings older than `SIGHTING_DAYS`, up to `limit`; how many went. */
export async function forgetOldSightings(deps: Deps, limit: number): Promise<number> {
  const before = formatTimestamp(deps.clock.nowMicros() - SIGHTING_DAYS * 86_400_000_000);
  return repository.deleteSightingsBefore(deps.database.db, before, limit);
}
