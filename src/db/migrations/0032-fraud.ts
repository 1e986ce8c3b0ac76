import { sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';
import { withId } from './helpers.ts';

/**
 * Issue 27: fraud flags and the hold. A flag names its rule, subject and owner, keeps the evidence
 * the rule used and moves open → cleared | confirmed. A customer with an open flag carries its id
 * (the sale already reads the customer row, so holding costs the sale no lookup), and so does
 * each commission held by it, with the due date it had so clearing gives it back. Referred
 * signups per owner, address and day feed `same_address` with one upsert.
 */
export const fraud: VouchMigration = {
  async up(db, dialect) {
    const idType = dialect === 'postgres' ? 'bigint' : 'integer';
    await withId(db.schema.createTable('fraud_flags'), dialect)
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('public_id', 'text', (c) => c.notNull())
      .addColumn('rule', 'text', (c) => c.notNull())
      /** customer, transaction, commission, reward, subscriber. */
      .addColumn('subject_kind', 'text', (c) => c.notNull())
      .addColumn('subject_id', idType, (c) => c.notNull())
      /** The subject's and the owner's public names when flagged (a customer's key, a partner's id). */
      .addColumn('subject_ref', 'text', (c) => c.notNull())
      /** partner or customer (a referrer). */
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', idType, (c) => c.notNull())
      .addColumn('owner_ref', 'text', (c) => c.notNull())
      /** JSON object: the values the rule compared (hashes, domains, counts), never more. */
      .addColumn('evidence', 'text', (c) => c.notNull())
      /** open, cleared, confirmed. */
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text')
      .addUniqueConstraint('fraud_flags_public_id', ['program_id', 'public_id'])
      .execute();
    await db.schema
      .createIndex('fraud_flags_by_subject')
      .on('fraud_flags')
      .columns(['program_id', 'subject_kind', 'subject_id', 'status'])
      .execute();
    await db.schema
      .createIndex('fraud_flags_by_status')
      .on('fraud_flags')
      .columns(['program_id', 'status', 'id'])
      .execute();
    await db.schema
      .createIndex('fraud_flags_by_owner')
      .on('fraud_flags')
      .columns(['program_id', 'owner_kind', 'owner_ref', 'id'])
      .execute();

    await db.schema
      .createTable('fraud_address_signups')
      .addColumn('program_id', 'bigint', (c) => c.notNull().references('programs.id').onDelete('cascade'))
      .addColumn('owner_kind', 'text', (c) => c.notNull())
      .addColumn('owner_id', idType, (c) => c.notNull())
      /** A salted hash of the address under the day's click salt: unlinkable once it rotates. */
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('signups', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('fraud_address_signups_pk', [
        'program_id',
        'owner_kind',
        'owner_id',
        'address',
        'day',
      ])
      .execute();

    await db.schema.alterTable('customers').addColumn('fraud_flag', 'text').execute();
    await db.schema.alterTable('rewards').addColumn('fraud_flag', 'text').execute();
    await db.schema.alterTable('rewards').addColumn('held_available_at', 'text').execute();
    // Few commissions are ever held: a partial index keeps sales from paying for it.
    await db.schema
      .createIndex('rewards_fraud_flag')
      .on('rewards')
      .columns(['program_id', 'fraud_flag'])
      .where(sql.ref('fraud_flag'), 'is not', null)
      .execute();
  },
};
