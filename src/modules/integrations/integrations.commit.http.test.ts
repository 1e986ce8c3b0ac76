import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import {
  deliverOk,
  eventsLog,
  programWithPartner,
  referredInvoice,
  unique,
} from '../../../test/billing-events.ts';
import { describeEachDatabase, listenToEvents } from '../../../test/harness.ts';
import { inParallel } from '../../../test/in-parallel.ts';

/**
 * A processor event's sale and its log rows commit together (ADR 0144): on PostgreSQL the log
 * rows go in the sale's own statement, whichever strategy writes it (coalesced with the program's
 * other sales of a turn when it has no active webhook, gated alone when it has one). The
 * transaction id that wrote each row (`xmin`) tells it; SQLite has none, and writes the event in
 * one write transaction by construction (integrations.receive.repository.ts).
 */
/** The ways a sale is written (transactions.sale-writer.ts): which one the event's sale takes. */
const WAYS = [
  { name: 'coalesced: known buyers, no webhook', subscribed: false, known: true },
  { name: 'gated alone: known buyers, a webhook', subscribed: true, known: true },
  { name: 'in a transaction: new buyers', subscribed: false, known: false },
];

describeEachDatabase('Processor events commit with their sales', (server, dialect) => {
  for (const way of WAYS) {
    test(`each sale and its event's log rows are one transaction (${way.name})`, async (t) => {
      if (dialect !== 'postgres') return t.skip('SQLite keeps no transaction id per row');
      const p = await programWithPartner(server());
      if (way.subscribed) await listenToEvents(server(), p);
      const customers = Array.from({ length: 24 }, () => `cus_${unique()}`);
      if (way.known) {
        for (const key of customers) {
          const created = await server().request('POST', '/v1/customers', {
            token: p.token,
            body: { key, partner: { key: 'pa' } },
          });
          assert.equal(created.status, 201, created.text);
        }
      }
      const events = customers.map((customer) => referredInvoice(customer, 2900));
      const answers = await inParallel(events.length, 12, (i) =>
        deliverOk(server(), p, 'stripe', events[i] ?? {}),
      );
      const { rows } = await sql<{ key: string; sale: string; log: string; refs: string }>`
        select t.key, t.xmin::text as sale, e.xmin::text as log,
          (select string_agg(distinct r.xmin::text, ',') from billing_sale_refs r
            where r.program_id = t.program_id and r.transaction_key = t.key) as refs
        from transactions t
        join billing_events e on e.program_id = t.program_id and e.transaction_key = t.key
        where t.program_id = ${p.id}`.execute(server().deps.database.db);
      assert.equal(rows.length, events.length);
      for (const row of rows) {
        assert.equal(row.log, row.sale, `the log row of ${row.key} committed apart from its sale`);
        assert.equal(row.refs, row.sale, `the ids of ${row.key} committed apart from its sale`);
      }
      // Each answer names the log row written with its sale.
      const listed = await eventsLog(server(), p, '?limit=100');
      for (const [i, event] of events.entries()) {
        const shown = listed.find((e) => e.event_id === event.id);
        assert.equal(shown?.status, 'processed');
        assert.equal(answers[i]?.id, shown?.id);
      }
    });
  }
});
