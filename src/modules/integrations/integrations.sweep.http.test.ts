import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chargeRefunded,
  deliverOk,
  eventsLog,
  programWithPartner,
  referredInvoice,
  transactionOf,
  unique,
} from '../../../test/billing-events.ts';
import { describeEachDatabase } from '../../../test/harness.ts';
import { createWorker } from '../../worker.ts';

describeEachDatabase('Refunds left waiting for a sale that arrived', (server) => {
  test('the worker runs a refund still pending once its sale is stored; one whose sale never came waits', async () => {
    const p = await programWithPartner(server());
    const db = server().deps.database.db;
    const invoice = referredInvoice(`cus_${unique()}`, 2900);
    const early = await deliverOk(server(), p, 'stripe', chargeRefunded(invoice, 900), 'pending');
    const orphan = await deliverOk(
      server(),
      p,
      'stripe',
      chargeRefunded(referredInvoice(`cus_${unique()}`, 1500), 500),
      'pending',
    );
    // The race the sweep is for: the refund looked for the sale's ids just before they were
    // committed, and the sale's look-up of waiting refunds ran before the refund was stored. Here
    // the refund is hidden from that look-up while the sale arrives, then shown again.
    const waiting = await db
      .selectFrom('billing_events')
      .select('awaits')
      .where('program_id', '=', p.id)
      .where('id', '=', early.id)
      .executeTakeFirstOrThrow();
    const hide = (awaits: string | null) =>
      db
        .updateTable('billing_events')
        .set({ awaits })
        .where('program_id', '=', p.id)
        .where('id', '=', early.id)
        .execute();
    await hide(`hidden_${unique()}`);
    await deliverOk(server(), p, 'stripe', invoice);
    await hide(waiting.awaits);
    const sale = () => transactionOf(server(), p, invoice.data.object.id);
    assert.equal((await sale()).body.data.refunded_amount, 0, 'the sale did not run the hidden refund');

    const worker = createWorker(server().deps);
    assert.equal((await worker.runOnce()).refunds, 1);
    assert.equal((await sale()).body.data.refunded_amount, 9);
    const statuses = new Map(
      (await eventsLog(server(), p, '?limit=100')).map((event) => [event.id, event.status]),
    );
    assert.equal(statuses.get(early.id), 'processed');
    assert.equal(statuses.get(orphan.id), 'pending', 'a refund whose sale never came keeps waiting');
    assert.equal((await worker.runOnce()).refunds, 0, 'nothing left to run');
    assert.equal((await sale()).body.data.refunded_amount, 9, 'run once');
  });
});
