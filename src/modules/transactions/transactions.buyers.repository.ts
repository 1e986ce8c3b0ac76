/** A sale's buyer and its history, read locked or in one unlocked statement (PostgreSQL's guarded write). */
import { type Kysely, type Selectable, sql } from 'kysely';
import { isPostgres } from '../../db/counter-slots.ts';
import type { CustomersTable, PartnersTable } from '../../db/domain-tables.ts';
import { lowerEmail } from '../../db/email.ts';
import { nextId } from '../../db/next-id.ts';
import { definePreparedQuery, type ParamOf } from '../../db/prepared.ts';
import type { DB } from '../../db/tables.ts';
import { subscribedCondition } from '../../outbox/outbox.ts';

/**
 * What a sale reads beside its buyer (`customers as c`), in the buyer's statement: the program's
 * settings and the buyer's figures (metric, low part, high part; one row per slot).
 */
export const buyerSaleReads = (param: ParamOf<{ programId: number }>) =>
  [
    sql<string>`(select settings from programs where id = ${param('programId')})`.as('program_settings'),
    sql<[string, number, number][]>`(select coalesce(json_agg(json_build_array(e.metric, e.value,
      e.value_hi)), '[]') from entity_counters e where e.program_id = ${param('programId')}
      and e.owner_kind = 'customer' and e.owner_id = c.id)`.as('figures'),
  ] as const;

/**
 * What a sale written in one statement reads beside its buyer: ids for the sale and its rewards
 * (REWARD_IDS_AHEAD of them), and whether the program has an active webhook (events are built
 * only then, outbox.ts).
 */
export const atOnceReads = (db: Kysely<DB>, param: ParamOf<{ programId: number }>) =>
  [
    nextId('transactions').as('sale_id'),
    sql<number[]>`array(select ${nextId('rewards')}
      from generate_series(1, ${sql.lit(REWARD_IDS_AHEAD)}))`.as('reward_ids'),
    subscribedCondition(db, param('programId')).as('subscribed'),
  ] as const;

/** What an affiliate sale's decision reads, with its buyer (`findAffiliateBuyerForSale`). */
export type AffiliateBuyerForSale = Selectable<CustomersTable> & {
  /** The program's settings (JSON text). */
  program_settings: string;
  /** The buyer's figures: metric, low part, high part (db/counter-parts.ts), one per slot. */
  figures: [string, number, number][];
  partner: Selectable<PartnersTable> | null;
  /** The partner's parent: internal id and public id. */
  parent: [number, string] | null;
};

/** What `readAffiliateBuyerForSale` adds: ids taken for the sale and its rewards. */
export type AffiliateBuyerRead = AffiliateBuyerForSale & AtOnceReads;

/** What a sale written in one statement reads beside its buyer (`atOnceReads`). */
export interface AtOnceReads {
  sale_id: number | string;
  reward_ids: (number | string)[];
  subscribed: boolean;
}

/**
 * Reward ids a sale read without a lock takes ahead: the usual most (two tiers, or the two sides
 * of a referral). Not a cap: a sale with more rewards takes the rest with `takeRewardIds`.
 */
export const REWARD_IDS_AHEAD = 2;

/** `count` ids of the rewards' identity sequence (PostgreSQL), for rewards written with their sale. */
export async function takeRewardIds(db: Kysely<DB>, count: number): Promise<number[]> {
  const { rows } = await sql<{ id: number | string }>`select ${nextId('rewards')} as id
    from generate_series(1, ${count}::int)`.execute(db);
  return rows.map((row) => Number(row.id));
}

export const affiliateBuyerBy = (column: 'key' | 'email', { lock }: { lock: boolean }) =>
  definePreparedQuery<AffiliateBuyerRead, { programId: number; value: string }>((db, param) => {
    const query = db
      .selectFrom('customers as c')
      .selectAll('c')
      .select([
        ...buyerSaleReads(param),
        sql<Selectable<PartnersTable> | null>`(select row_to_json(p) from partners p
          where p.program_id = ${param('programId')} and p.id = c.partner_id)`.as('partner'),
        sql<[number, string] | null>`(select json_build_array(pp.id, pp.public_id) from partners p
          join partners pp on pp.program_id = p.program_id and pp.id = p.referring_partner_id
          where p.program_id = ${param('programId')} and p.id = c.partner_id)`.as('parent'),
      ])
      .where('c.program_id', '=', param('programId'))
      .where(
        column === 'email' ? lowerEmail('c.email') : sql.ref('c.key'),
        '=',
        column === 'email' ? sql`lower(${param('value')})` : param('value'),
      );
    if (lock) return query.forUpdate('c');
    return query.select(atOnceReads(db, param));
  });

export const selectAffiliateBuyerBy = {
  key: affiliateBuyerBy('key', { lock: true }),
  email: affiliateBuyerBy('email', { lock: true }),
};

export const readAffiliateBuyerBy = {
  key: affiliateBuyerBy('key', { lock: false }),
  email: affiliateBuyerBy('email', { lock: false }),
};

/**
 * PostgreSQL, for a sale written in one statement without a transaction (migration 0023): what
 * `findAffiliateBuyerForSale` reads, without locking the buyer (its `sale_version` guards the
 * write instead), and the ids the sale and its rewards will have.
 */
export async function readAffiliateBuyerForSale(
  db: Kysely<DB>,
  programId: number,
  ref: { key?: string | undefined; email?: string | undefined },
): Promise<AffiliateBuyerRead | undefined> {
  if (ref.key !== undefined) return (await readAffiliateBuyerBy.key(db, { programId, value: ref.key }))[0];
  if (ref.email !== undefined)
    return (await readAffiliateBuyerBy.email(db, { programId, value: ref.email }))[0];
  return undefined;
}

/**
 * PostgreSQL: an affiliate sale's buyer by key (or e-mail), locked until the transaction ends,
 * with everything the sale's decision reads (program settings, the buyer's figures, its partner
 * and that partner's parent) in one round trip instead of five. Every value here fits a double
 * (ids, counter parts, no amounts), so the JSON parts keep them exactly.
 */
export async function findAffiliateBuyerForSale(
  db: Kysely<DB>,
  programId: number,
  ref: { key?: string | undefined; email?: string | undefined },
): Promise<AffiliateBuyerForSale | undefined> {
  // SQLite reads the parts one by one (in-process calls): this statement is PostgreSQL's.
  if (!isPostgres(db)) return undefined;
  if (ref.key !== undefined) return (await selectAffiliateBuyerBy.key(db, { programId, value: ref.key }))[0];
  if (ref.email !== undefined)
    return (await selectAffiliateBuyerBy.email(db, { programId, value: ref.email }))[0];
  return undefined;
}

/** What `readReferralBuyerForSale` answers: the buyer, its referrer's public id, the sale's reads and ids. */
export type ReferralBuyerRead = Selectable<CustomersTable> &
  AtOnceReads & {
    referrer_public_id: string | null;
    program_settings: string;
    figures: [string, number, number][];
  };

export const referralBuyerBy = (column: 'public_id' | 'key' | 'email') =>
  definePreparedQuery<ReferralBuyerRead, { programId: number; value: string }>((db, param) =>
    db
      .selectFrom('customers as c')
      .leftJoin('customers as r', 'r.id', 'c.referring_customer_id')
      .selectAll('c')
      .select('r.public_id as referrer_public_id')
      .select([...buyerSaleReads(param), ...atOnceReads(db, param)])
      .where('c.program_id', '=', param('programId'))
      .where(
        column === 'email' ? lowerEmail('c.email') : sql.ref(`c.${column}`),
        '=',
        column === 'email' ? sql`lower(${param('value')})` : param('value'),
      ),
  );

export const readReferralBuyerBy = {
  public_id: referralBuyerBy('public_id'),
  key: referralBuyerBy('key'),
  email: referralBuyerBy('email'),
};

/**
 * PostgreSQL, for a refer-a-friend purchase written in one statement (migration 0023): the buyer
 * by id, key or e-mail (the first given) with its referrer's public id, the program's settings,
 * its figures, and ids for the sale and its rewards (at most one per side), unlocked.
 */
export async function readReferralBuyerForSale(
  db: Kysely<DB>,
  programId: number,
  ref: { id?: string | undefined; key?: string | undefined; email?: string | undefined },
): Promise<ReferralBuyerRead | undefined> {
  if (ref.id !== undefined) return (await readReferralBuyerBy.public_id(db, { programId, value: ref.id }))[0];
  if (ref.key !== undefined) return (await readReferralBuyerBy.key(db, { programId, value: ref.key }))[0];
  if (ref.email !== undefined)
    return (await readReferralBuyerBy.email(db, { programId, value: ref.email }))[0];
  return undefined;
}
