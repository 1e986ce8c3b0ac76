import type { VouchMigration } from './helpers.ts';

/**
 * The worker deletes portal sessions and one-time tokens past their expiry, and failed sign-ins
 * past the time they are remembered, across programs (portal.cleanup.service.ts): by nature a
 * global sweep, like the delivery worker's due-work index, so these indexes lead with the time.
 */
export const portalExpiry: VouchMigration = {
  async up(db) {
    await db.schema
      .createIndex('portal_sessions_expiry')
      .on('portal_sessions')
      .column('expires_at')
      .execute();
    await db.schema.createIndex('portal_tokens_expiry').on('portal_tokens').column('expires_at').execute();
    await db.schema
      .createIndex('portal_sign_in_failures_age')
      .on('portal_sign_in_failures')
      .column('last_failed_at')
      .execute();
  },
};
