import type { Kysely } from 'kysely';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import './fraud.tables.ts';

/** Addresses and click ids owners used in their portals (`same_address`, migration 0041). */

export interface Sighting {
  kind: 'address' | 'click';
  value: string;
}

export interface SightingOwner {
  kind: string;
  id: number;
}

/** When `owner` was last seen with `sighting`; undefined when never (or forgotten). */
export async function findLastSeen(
  db: Kysely<DB>,
  programId: number,
  owner: SightingOwner,
  sighting: Sighting,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('fraud_portal_sightings')
    .select('last_seen_at')
    .where('program_id', '=', programId)
    .where('kind', '=', sighting.kind)
    .where('value', '=', sighting.value)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .executeTakeFirst();
  return row?.last_seen_at;
}

/** Records the sighting at `now`: a new row, or the last-seen time of the stored one. */
export async function upsertSighting(
  db: Kysely<DB>,
  programId: number,
  owner: SightingOwner,
  sighting: Sighting,
  now: string,
): Promise<void> {
  await db
    .insertInto('fraud_portal_sightings')
    .values({
      program_id: programId,
      ...sighting,
      owner_kind: owner.kind,
      owner_id: owner.id,
      last_seen_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['program_id', 'kind', 'value', 'owner_kind', 'owner_id'])
        .doUpdateSet({ last_seen_at: now }),
    )
    .execute();
}

/** Keeps the owner's `keep` most recent sightings and deletes the others. */
export async function capSightings(
  db: Kysely<DB>,
  programId: number,
  owner: SightingOwner,
  keep: number,
): Promise<void> {
  const ofOwner = db
    .selectFrom('fraud_portal_sightings')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id);
  const oldestKept = await ofOwner
    .select('last_seen_at')
    .orderBy('last_seen_at', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst();
  if (!oldestKept) return;
  await db
    .deleteFrom('fraud_portal_sightings')
    .where('program_id', '=', programId)
    .where('owner_kind', '=', owner.kind)
    .where('owner_id', '=', owner.id)
    .where('last_seen_at', '<', oldestKept.last_seen_at)
    .execute();
}

interface FoundSightingRow {
  kind: 'address' | 'click';
  value: string;
  owner_kind: string;
  owner_id: number;
}

interface SightingParams {
  programId: number;
  firstAddress: string;
  secondAddress: string;
  click: string;
  since: string;
}

/** Never a stored value (names and click ids are never empty): stands for "none" in a slot. */
export const NONE = '';

/**
 * The lookup of a sale or signup, prepared: a sale runs it on every request that forwards an
 * address, and compiling it each time cost more than the lookup itself. Two address slots: an
 * address has one name per server key, two while a key is being replaced.
 */
const sightingsOf = (db: Kysely<DB>, param: ParamOf<SightingParams>) =>
  db
    .selectFrom('fraud_portal_sightings')
    .select(['kind', 'value', 'owner_kind', 'owner_id'])
    .where('program_id', '=', param('programId'))
    // A row-value list: SQLite, which keeps no statistics here, then searches the primary key for
    // each pair; the `or` of two `and`s made it read the program's sightings by owner instead.
    .where((eb) =>
      eb(eb.refTuple('kind', 'value'), 'in', [
        eb.tuple<'address', string>('address', param('firstAddress')),
        eb.tuple<'address', string>('address', param('secondAddress')),
        eb.tuple<'click', string>('click', param('click')),
      ]),
    )
    .where('last_seen_at', '>=', param('since'));

const selectSightings = definePreparedQuery<FoundSightingRow, SightingParams>((db, param) =>
  sightingsOf(db, param).limit(50),
);

const selectOwnerSightings = definePreparedQuery<
  FoundSightingRow,
  SightingParams & { ownerKind: string; ownerId: number }
>((db, param) =>
  sightingsOf(db, param)
    .where('owner_kind', '=', param('ownerKind'))
    .where('owner_id', '=', param('ownerId'))
    .limit(50),
);

/**
 * The sightings of the program with one of `addresses` or the click `click` (any owner: a sale
 * learns its owner later), seen since `since`: primary-key lookups. Two addresses a statement; a
 * server with more keys (more names of one address) asks once per pair.
 */
export async function findSightings(
  db: Kysely<DB>,
  programId: number,
  looked: { addresses: readonly string[]; click: string | undefined },
  since: string,
  owner?: SightingOwner,
): Promise<FoundSightingRow[]> {
  if (looked.addresses.length === 0 && looked.click === undefined) return [];
  const addresses = looked.addresses.length > 0 ? looked.addresses : [NONE];
  const found: FoundSightingRow[] = [];
  for (let i = 0; i < addresses.length; i += 2) {
    const firstAddress = addresses[i] ?? NONE;
    const secondAddress = addresses[i + 1] ?? firstAddress;
    const click = i === 0 ? (looked.click ?? NONE) : NONE;
    const params = { programId, firstAddress, secondAddress, click, since };
    found.push(
      ...(owner
        ? await selectOwnerSightings(db, { ...params, ownerKind: owner.kind, ownerId: owner.id })
        : await selectSightings(db, params)),
    );
  }
  return found;
}

/** Deletes up to `limit` sightings last seen before `before` (the worker's sweep); how many went. */
export async function deleteSightingsBefore(db: Kysely<DB>, before: string, limit: number): Promise<number> {
  const page = db
    .selectFrom('fraud_portal_sightings')
    .select(['program_id', 'kind', 'value', 'owner_kind', 'owner_id'])
    .where('last_seen_at', '<', before)
    .limit(limit)
    .$asTuple('program_id', 'kind', 'value', 'owner_kind', 'owner_id');
  const result = await db
    .deleteFrom('fraud_portal_sightings')
    .where((eb) => eb(eb.refTuple('program_id', 'kind', 'value', 'owner_kind', 'owner_id'), 'in', page))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
