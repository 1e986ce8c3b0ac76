import { type Kysely, sql } from 'kysely';
import type { VouchMigration } from './helpers.ts';

/**
 * Issue 15, PostgreSQL only: less work in every sale's write.
 *
 * - Four foreign keys whose check each sale paid for, although what they check holds already:
 *   a sale's buyer is locked by the write itself (its sale-version guard, or the transaction
 *   path's `for update`), programs are never deleted by Vouch, and a reward's sale is inserted by
 *   the same statement. Each check is a query of its own that locks the parent row (the
 *   program's, shared by every sale of the program). What the keys also did on delete, two
 *   triggers do: a customer's sales go with it (as the customer delete already takes them back
 *   first), and a sale's rewards go with the sale. The partner and referrer keys stay: those rows
 *   are not locked by the sale.
 * - The overview's by-day index no longer carries the figures' values: with them, every figure
 *   update of a program wrote a new entry into both of its indexes and left a dead row that only
 *   a vacuum removes; without, the update stays in its page (HOT) and the page cleans itself.
 *
 * SQLite keeps its keys and its covering index: there a check is an index look-up without a lock,
 * and an update writes no new row version.
 */
export const saleWriteChecks: VouchMigration = {
  async up(db, dialect) {
    if (dialect !== 'postgres') return;
    await sql`alter table transactions
      drop constraint transactions_program_id_fkey,
      drop constraint transactions_customer_id_fkey`.execute(db);
    await sql`alter table rewards
      drop constraint rewards_program_id_fkey,
      drop constraint rewards_transaction_id_fkey`.execute(db);
    await deleteWith(db, { parent: 'customers', child: 'transactions', column: 'customer_id' });
    await deleteWith(db, { parent: 'transactions', child: 'rewards', column: 'transaction_id' });
    await db.schema.dropIndex('program_counters_by_day').execute();
    await db.schema
      .createIndex('program_counters_by_day')
      .on('program_counters')
      .columns(['program_id', 'day', 'metric'])
      .execute();
  },
};

/**
 * What `on delete cascade` did, as a trigger: a deleted `parent` row takes the `child` rows whose
 * `column` names it, found by the child's program-led index.
 */
async function deleteWith(
  db: Kysely<unknown>,
  { parent, child, column }: { parent: string; child: string; column: string },
) {
  const fn = sql.id(`vouch_delete_${child}_of_${parent}`);
  await sql`
    create function ${fn}() returns trigger language plpgsql as $$
    begin
      delete from ${sql.id(child)} where program_id = old.program_id and ${sql.id(column)} = old.id;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger ${sql.id(`${parent}_delete_${child}`)} after delete on ${sql.id(parent)}
    for each row execute function ${fn}()`.execute(db);
}
