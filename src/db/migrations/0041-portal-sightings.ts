import type { VouchMigration } from './helpers.ts';

/**
 * Issue 27, `same_address`: the addresses and click ids a partner or referrer used in its portal,
 * so a referral from the owner's own network or browser is seen. One row per owner and value, with
 * the last time it was seen: an address is a keyed hash (HMAC under the server key), never the
 * address itself; a click id is the one the portal request's `vouch_click` cookie carried. The
 * owner's rows are capped and old ones swept by the worker, so the table stays small.
 */
export const portalSightings: VouchMigration = {
  async up(db, dialect) {
    const idType = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('fraud_portal_sightings')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      /** `address` or `click`. */
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      /** partner, customer (a referrer) or subscriber (a newsletter referrer). */
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', idType, (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      // Led by what a signup or a sale looks up: the value, then whose it was.
      .addPrimaryKeyConstraint('fraud_portal_sightings_pk', [
        'program_id',
        'kind',
        'value',
        'owner_kind',
        'owner_id',
      ])
      .execute();
    await db.schema
      .createIndex('fraud_portal_sightings_by_owner')
      .on('fraud_portal_sightings')
      .columns(['program_id', 'owner_kind', 'owner_id', 'last_seen_at'])
      .execute();
    await db.schema
      .createIndex('fraud_portal_sightings_by_time')
      .on('fraud_portal_sightings')
      .column('last_seen_at')
      .execute();
  },
};
