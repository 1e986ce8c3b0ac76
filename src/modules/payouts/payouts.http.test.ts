import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commissionProgram,
  commissionsOf,
  figuresOf,
  recount,
  sell,
} from '../../../test/commission-factories.ts';
import {
  describeEachDatabase,
  listenToEvents,
  ManualClock,
  recordedEvents,
  startServer,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { firstItems, itemAt } from '../../../test/items.ts';

const manual = async (
  server: TestServer,
  p: TestProgram,
  partner: string,
  amount: number,
  currency = 'USD',
) => {
  const res = await server.request('POST', '/v1/commissions', {
    token: p.token,
    body: { partner, amount, currency, description: 'test' },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
};

describeEachDatabase('payouts', (server) => {
  const post = <const P extends string>(p: TestProgram, path: P, body: unknown = {}) =>
    server().request('POST', path, { token: p.token, body });

  test('a payout gathers approved commissions per partner, net of clawbacks, above the minimum', async () => {
    const { p, partners } = await commissionProgram(server(), {
      payout_minimum: { USD: 25 },
    });
    await sell(server(), p, 'c-pa', 's1', 200); // pa: 20
    await sell(server(), p, 'c-pa', 's2', 100); // pa: 10
    await sell(server(), p, 'c-pb', 's3', 200); // pb: 20, below the minimum
    await sell(server(), p, 'c-pa', 's4', 500, 'EUR'); // another currency
    await manual(server(), p, partners.pa, -2.5); // a correction nets out
    const res = await post(p, '/v1/payouts');
    assert.equal(res.status, 201, res.text);
    const payout = res.body.data;
    assert.equal(payout.status, 'pending');
    assert.equal(payout.currency, 'USD');
    assert.equal(payout.total, 27.5);
    assert.equal(payout.partner_count, 1);
    assert.equal(payout.paid_at, null);
    assert.deepEqual(payout.items, [
      { partner: partners.pa, amount: 27.5, commission_count: 3, payout_method: null },
    ]);
    const inPayout = (await commissionsOf(server(), p, '&currency=USD')).filter(
      (c) => c.payout === payout.id,
    );
    assert.equal(inPayout.length, 3);
    // Nothing left above the minimum: a second payout has nothing to take.
    const empty = await post(p, '/v1/payouts');
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.error.errors, {
      currency: ['No partner has approved commissions in USD that reach the payout minimum.'],
    });
    const eur = await post(p, '/v1/payouts', { currency: 'eur' });
    assert.equal(eur.status, 201, eur.text);
    assert.equal(eur.body.data.total, 50);
    const onlyPb = await post(p, '/v1/payouts', { partner: partners.pb });
    assert.equal(onlyPb.status, 422);
    const fetched = await server().request('GET', `/v1/payouts/${payout.id}`, { token: p.token });
    assert.deepEqual(fetched.body.data, payout);
    const list = await server().request('GET', '/v1/payouts?sort=asc', { token: p.token });
    assert.deepEqual(
      list.body.data.map((e) => [e.id, e.currency, 'items' in e]),
      [
        [payout.id, 'USD', false],
        [eur.body.data.id, 'EUR', false],
      ],
    );
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'payout.created').length, 2);
  });

  test('mark paid: commissions paid, figures follow, events and an e-mail per partner; cancel frees them', async () => {
    const { p, partners } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 's1', 100);
    await sell(server(), p, 'c-pb', 's2', 300);
    const first = (await post(p, '/v1/payouts')).body.data;
    assert.equal(first.total, 40);
    // A commission in a payout cannot be denied until the payout is cancelled.
    const c2 = itemAt(await commissionsOf(server(), p, '&transaction=s2'));
    const deny = await post(p, '/v1/commissions/deny', { ids: [c2.id] });
    assert.equal(deny.status, 422);
    assert.deepEqual(deny.error.errors, {
      'ids.0': [`The commission ${c2.id} is in a payout and cannot be denied.`],
    });
    const cancelled = await post(p, `/v1/payouts/${first.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'cancelled');
    assert.ok((await commissionsOf(server(), p)).every((c) => c.payout === null && c.status === 'approved'));
    const paidCancelled = await post(p, `/v1/payouts/${first.id}/mark-paid`);
    assert.equal(paidCancelled.status, 422);
    assert.deepEqual(paidCancelled.error.errors, {
      status: ['The payout is cancelled and cannot be marked paid.'],
    });

    const second = (await post(p, '/v1/payouts')).body.data;
    assert.equal(second.total, 40);
    const paid = await post(p, `/v1/payouts/${second.id}/mark-paid`);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.data.status, 'paid');
    assert.ok(paid.body.data.paid_at);
    const commissions = await commissionsOf(server(), p);
    assert.ok(commissions.every((c) => c.status === 'paid' && c.payout === second.id && c.paid_at));
    assert.deepEqual(await figuresOf(server(), p, partners.pa), { paid: 10, pending: [], not_paid: [] });
    assert.deepEqual(await figuresOf(server(), p, partners.pb), await recount(server(), p, partners.pb));
    assert.equal((await post(p, `/v1/payouts/${second.id}/mark-paid`)).status, 200);
    const cancelPaid = await post(p, `/v1/payouts/${second.id}/cancel`);
    assert.equal(cancelPaid.status, 422);
    assert.ok(cancelPaid.error.errors.status);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'commission.paid').length, 2);
    assert.equal(events.filter((e) => e === 'payout.paid').length, 1);
    const mails = await server()
      .deps.database.db.selectFrom('email_outbox')
      .select(['recipient', 'subject'])
      .where('program_id', '=', p.id)
      .orderBy('recipient')
      .execute();
    assert.deepEqual(
      mails.map((m) => m.recipient),
      ['pa@example.com', 'pb@example.com'],
    );
    assert.match(itemAt(mails).subject, /your payout of 10\.00 USD/);

    // A refund of a paid sale claws back; the next payout nets it against new commissions.
    assert.equal((await post(p, '/v1/transactions/s2/refund', { amount: 100 })).status, 200);
    await sell(server(), p, 'c-pb', 's3', 50);
    const third = await post(p, '/v1/payouts');
    assert.equal(third.status, 422, 'a clawback of 10 outweighs a commission of 5');
    await sell(server(), p, 'c-pb', 's4', 100);
    const fourth = await post(p, '/v1/payouts');
    assert.equal(fourth.status, 201, fourth.text);
    assert.deepEqual(fourth.body.data.items, [
      { partner: partners.pb, amount: 5, commission_count: 3, payout_method: null },
    ]);
    assert.equal((await post(p, `/v1/payouts/${fourth.body.data.id}/mark-paid`)).status, 200);
    assert.deepEqual(await figuresOf(server(), p, partners.pb), await recount(server(), p, partners.pb));
    assert.deepEqual((await figuresOf(server(), p, partners.pb)).paid, 35);
  });

  test('20 concurrent payout creates never put one commission in two payouts', async () => {
    const { p, partners } = await commissionProgram(server());
    for (let i = 0; i < 10; i++) await sell(server(), p, i % 2 ? 'c-pa' : 'c-pb', `c${i}`, 10 + i);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(p, '/v1/payouts')));
    assert.equal(results.filter((r) => r.status === 201).length, 1, results.map((r) => r.status).join());
    assert.ok(results.every((r) => r.status === 201 || r.status === 422));
    const created = results.find((r) => r.status === 201);
    assert.ok(created, 'one create succeeds');
    const made = created.body.data;
    assert.equal(made.total, 14.5);
    const commissions = await commissionsOf(server(), p);
    assert.ok(commissions.every((c) => c.payout === made.id));
    const rows = await server()
      .deps.database.db.selectFrom('payouts')
      .select('id')
      .where('program_id', '=', p.id)
      .execute();
    assert.equal(rows.length, 1);
    for (const id of Object.values(partners))
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
  });

  test('exports: PayPal, Wise and plain CSV, quoted, amounts rounded to the minor unit only here', async () => {
    const p = await server().newProgram('affiliate');
    const partner = await post(p, '/v1/partners', {
      email: 'quoted@example.com',
      name: 'Ann "The, Best"',
      surname: 'Smith',
      key: 'qk',
    });
    assert.equal(partner.status, 201, partner.text);
    await manual(server(), p, partner.body.data.id, 12.3456);
    await manual(server(), p, partner.body.data.id, 1000.5, 'JPY');
    const usd = (await post(p, '/v1/payouts', { currency: 'USD' })).body.data;
    const jpy = (await post(p, '/v1/payouts', { currency: 'JPY' })).body.data;
    const get = (id: string, format: string) =>
      server().request('GET', `/v1/payouts/${id}/export?format=${format}`, { token: p.token });
    const paypal = await get(usd.id, 'paypal');
    assert.equal(paypal.status, 200, paypal.text);
    assert.match(paypal.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(
      paypal.headers.get('content-disposition') ?? '',
      /attachment; filename="payout-.*-paypal\.csv"/,
    );
    assert.equal(
      paypal.text,
      `quoted@example.com,12.35,USD,${`${usd.id}-${partner.body.data.id}`.slice(0, 30)},Commissions (1)\n`,
    );
    const plain = await get(usd.id, 'csv');
    const [header, line] = firstItems(plain.text.trimEnd().split('\n'), 2);
    assert.ok(header.startsWith('payout_id,partner_id,email,name,payout_method,amount,currency'));
    assert.ok(line.includes(',"Ann ""The, Best"" Smith",,12.35,USD,1,'), line);
    const wise = await get(jpy.id, 'wise');
    const rows = wise.text.trimEnd().split('\n');
    assert.equal(
      rows[0],
      'name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency,IBAN,accountNumber,sortCode,BIC',
    );
    assert.ok(itemAt(rows, 1).includes(',1001,JPY,JPY,'), rows[1]);
    const bad = await get(usd.id, 'xlsx');
    assert.equal(bad.status, 422);
    assert.ok(bad.error.errors.format);
    const other = await server().newProgram('affiliate');
    const foreign = await server().request('GET', `/v1/payouts/${usd.id}/export?format=csv`, {
      token: other.token,
    });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.headers.get('content-type'), 'application/json');
    assert.equal(
      (await server().request('GET', `/v1/payouts/${usd.id}`, { token: other.token })).status,
      404,
    );
    assert.equal((await post(other, `/v1/payouts/${usd.id}/mark-paid`)).status, 404);
    // Without a webhook no event is stored, and a payout is still paid in full.
    assert.equal((await post(p, `/v1/payouts/${usd.id}/mark-paid`)).status, 200);
    const paid = await server().request('GET', '/v1/commissions?status=paid', { token: p.token });
    assert.equal(paid.body.data.length, 1);
    assert.equal(paid.body.data[0]?.payout, usd.id);
    assert.deepEqual(await recordedEvents(server(), p), []);
  });

  test('exports name the partner as the payout kept it; only the plain CSV defuses formulas', async () => {
    const p = await server().newProgram('affiliate');
    const partner = await post(p, '/v1/partners', {
      email: 'form@example.com',
      name: '=HYPERLINK("http://x","y")',
      key: 'fk',
      payout_method: 'manual',
      payout_details: { note: '@SUM(1)' },
    });
    assert.equal(partner.status, 201, partner.text);
    const id = partner.body.data.id;
    await manual(server(), p, id, 10);
    const payout = (await post(p, '/v1/payouts')).body.data;
    const renamed = await server().request('PUT', `/v1/partners/${id}`, {
      token: p.token,
      body: { update: { email: 'changed@example.com', name: 'Plain' } },
    });
    assert.equal(renamed.status, 200, renamed.text);
    const get = (format: string) =>
      server().request('GET', `/v1/payouts/${payout.id}/export?format=${format}`, { token: p.token });
    // Payment services read their files as data: fields go as the payout kept them.
    const paypal = await get('paypal');
    assert.equal(
      paypal.text,
      `form@example.com,10.00,USD,${`${payout.id}-${id}`.slice(0, 30)},Commissions (1)\n`,
    );
    const wise = itemAt((await get('wise')).text.split('\n'), 1);
    assert.ok(wise.startsWith('"=HYPERLINK(""http://x"",""y"")",form@example.com,'), wise);
    // The plain CSV is for spreadsheets: text a partner typed never starts a formula there.
    const line = itemAt((await get('csv')).text.trimEnd().split('\n'), 1);
    assert.equal(
      line,
      `${payout.id},${id},form@example.com,"'=HYPERLINK(""http://x"",""y"")",manual,10.00,USD,1,,,,,,,,'@SUM(1)`,
    );
  });

  test('an export of thousands of partners streams every row once', async () => {
    const p = await server().newProgram('affiliate');
    const db = server().deps.database.db;
    const now = '2026-01-01T00:00:00.000000Z';
    const ids: number[] = [];
    for (let i = 0; i < 2500; i += 500) {
      const rows = await db
        .insertInto('partners')
        .values(
          Array.from({ length: 500 }, (_, j) => ({
            program_id: p.id,
            public_id: `bulk${i + j}`,
            email: `bulk${i + j}@example.com`,
            created_at: now,
            updated_at: now,
          })),
        )
        .returning('id')
        .execute();
      ids.push(...rows.map((r) => Number(r.id)));
    }
    for (let i = 0; i < ids.length; i += 500) {
      await db
        .insertInto('rewards')
        .values(
          ids.slice(i, i + 500).map((id) => ({
            program_id: p.id,
            transaction_id: null,
            partner_id: id,
            customer_id: null,
            role: 'manual',
            status: 'ok',
            amount: 1_000_000,
            amount_units: 'USD',
            is_currency: true,
            credit: false,
            commission_type: 'fixed',
            commission_value: '1',
            created_at: now,
            approved_at: now,
          })),
        )
        .execute();
    }
    const payout = await post(p, '/v1/payouts');
    assert.equal(payout.status, 201, payout.text.slice(0, 200));
    assert.equal(payout.body.data.total, 2500);
    const file = await server().request('GET', `/v1/payouts/${payout.body.data.id}/export?format=paypal`, {
      token: p.token,
    });
    const lines = file.text.trimEnd().split('\n');
    assert.equal(lines.length, 2500);
    assert.equal(new Set(lines.map((l) => l.split(',')[0])).size, 2500);
  });

  test('partner payout details: set on create and update, shown on the fetch only, used by exports', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const created = await post(p, '/v1/partners', {
      email: 'pay@example.com',
      key: 'payk',
      payout_method: 'paypal',
      payout_details: { email: 'paypal-pay@example.com' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal('payout_method' in created.body.data, false);
    assert.equal('payout_details' in created.body.data, false);
    const id = created.body.data.id;
    const fetched = await server().request('GET', `/v1/partners/${id}`, { token: p.token });
    assert.equal(fetched.body.data.payout_method, 'paypal');
    assert.deepEqual(fetched.body.data.payout_details, { email: 'paypal-pay@example.com' });
    const list = await server().request('GET', '/v1/partners', { token: p.token });
    assert.equal('payout_method' in itemAt(list.body.data), false);
    assert.equal('payout_details' in itemAt(list.body.data), false);
    const events = await recordedEvents(server(), p);
    assert.ok(events.every((e) => !JSON.stringify(e.payload).includes('paypal-pay')));

    await manual(server(), p, id, 10);
    const payout = (await post(p, '/v1/payouts')).body.data;
    assert.equal(payout.items[0]?.payout_method, 'paypal');
    const paypal = await server().request('GET', `/v1/payouts/${payout.id}/export?format=paypal`, {
      token: p.token,
    });
    assert.ok(paypal.text.startsWith('paypal-pay@example.com,10.00,USD,'), paypal.text);

    const bad: [unknown, string, string][] = [
      [{ payout_method: 'bitcoin' }, 'update.payout_method', 'The selected update.payout method is invalid.'],
      [
        { payout_method: 'paypal', payout_details: {} },
        'update.payout_details.email',
        'The update.payout details.email field is required when payout method is paypal.',
      ],
      [
        { payout_method: 'bank_transfer', payout_details: { iban: 'DE89370400440532013000' } },
        'update.payout_details.account_holder',
        'The update.payout details.account holder field is required when payout method is bank_transfer.',
      ],
      [
        { payout_method: 'wise', payout_details: { iban: 'not an iban', account_holder: 'A' } },
        'update.payout_details.iban',
        'The update.payout details.iban field format is invalid.',
      ],
    ];
    for (const [update, field, message] of bad) {
      const res = await server().request('PUT', `/v1/partners/${id}`, { token: p.token, body: { update } });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors[field], [message], res.text);
    }
    const unknown = await post(p, '/v1/partners', { email: 'x@example.com', payout_method: 'cash' });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.error.errors, { payout_method: ['The selected payout method is invalid.'] });
    const detailsOnly = await post(p, '/v1/partners', {
      email: 'y@example.com',
      payout_details: { note: 'x' },
    });
    assert.equal(detailsOnly.status, 422);
    assert.ok(detailsOnly.error.errors.payout_method);
    assert.equal(
      (await server().request('GET', '/v1/partners?limit=250', { token: p.token })).body.data.length,
      1,
    );

    const wise = await server().request('PUT', `/v1/partners/${id}`, {
      token: p.token,
      body: {
        payout_method: 'wise',
        payout_details: { iban: 'DE89370400440532013000', account_holder: 'Pay, "Inc"' },
      },
    });
    assert.equal(wise.status, 200, wise.text);
    const after = await server().request('GET', `/v1/partners/${id}`, { token: p.token });
    assert.equal(after.body.data.payout_method, 'wise');
    // Fields alone keep the method.
    const note = await server().request('PUT', `/v1/partners/${id}`, {
      token: p.token,
      body: { payout_details: { email: 'wise@example.com' } },
    });
    assert.equal(note.status, 200, note.text);
    const last = await server().request('GET', `/v1/partners/${id}`, { token: p.token });
    assert.deepEqual(
      [last.body.data.payout_method, last.body.data.payout_details],
      ['wise', { email: 'wise@example.com' }],
    );
  });

  test('webhooks offer commission.* and payout.* to affiliate programs only; transaction.refunded to both', async () => {
    const affiliate = await server().newProgram('affiliate');
    const referral = await server().newProgram('referral');
    const hook = (events: string[]) => ({ name: 'money', url: 'https://hooks.example.com/in', events });
    const money = [
      'commission.created',
      'commission.approved',
      'commission.denied',
      'commission.voided',
      'commission.paid',
      'payout.created',
      'payout.paid',
      'transaction.refunded',
    ];
    const ok = await post(affiliate, '/v1/webhooks', hook(money));
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.data.events, money);
    const refused = await post(referral, '/v1/webhooks', hook(['payout.paid']));
    assert.equal(refused.status, 422);
    assert.ok(Object.keys(refused.error.errors)[0]?.startsWith('events'));
    assert.equal((await post(referral, '/v1/webhooks', hook(['transaction.refunded']))).status, 200);
  });

  test('deleting a sale voids its unpaid commission and claws back a paid one', async () => {
    const { p, partners } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 'd1', 100);
    await sell(server(), p, 'c-pb', 'd2', 300);
    const c1 = itemAt(await commissionsOf(server(), p, '&transaction=d1'));
    const payout = (await post(p, '/v1/payouts', { partner: partners.pb })).body.data;
    assert.equal((await post(p, `/v1/payouts/${payout.id}/mark-paid`)).status, 200);
    for (const key of ['d1', 'd2'])
      assert.equal(
        (await server().request('DELETE', `/v1/transactions/${key}`, { token: p.token })).status,
        200,
      );
    const voided = await server().request('GET', `/v1/commissions/${c1.id}`, { token: p.token });
    assert.equal(voided.status, 200, voided.text);
    assert.deepEqual(
      [voided.body.data.status, voided.body.data.transaction, voided.body.data.reason],
      ['voided', null, 'Sale deleted'],
    );
    const pb = await commissionsOf(server(), p, `&partner=${partners.pb}`);
    assert.deepEqual(
      pb.map((c) => [c.kind, c.status, c.amount, c.transaction]),
      [
        ['clawback', 'approved', -30, null],
        ['sale', 'paid', 30, null],
      ],
    );
    for (const id of Object.values(partners))
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
    assert.deepEqual(await figuresOf(server(), p, partners.pb), {
      paid: 30,
      pending: [],
      not_paid: [{ currency: 'USD', amount: -30 }],
    });
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'commission.voided').length, 1);
  });

  test('refunding an archived sale: its figures stay out, but a paid commission is clawed back now', async () => {
    const { p, partners } = await commissionProgram(server());
    const act = <const P extends string>(path: P, body: unknown = {}) => post(p, path, body);
    await sell(server(), p, 'c-pa', 'a1', 100); // pa: 10, unpaid
    await sell(server(), p, 'c-pb', 'a2', 300); // pb: 30, paid below
    const paid = (await act('/v1/payouts', { partner: partners.pb })).body.data;
    assert.equal((await act(`/v1/payouts/${paid.id}/mark-paid`)).status, 200);
    for (const key of ['a1', 'a2']) assert.equal((await act(`/v1/transactions/${key}/archive`)).status, 200);
    assert.equal((await act('/v1/transactions/a1/refund', { amount: 50 })).status, 200);
    const refunded = await act('/v1/transactions/a2/refund');
    assert.equal(refunded.status, 200, refunded.text);
    // The archived sale's own figures stay out; the clawback of what was paid is owed now.
    assert.deepEqual(await figuresOf(server(), p, partners.pa), { paid: 0, pending: [], not_paid: [] });
    assert.deepEqual(await figuresOf(server(), p, partners.pb), {
      paid: 0,
      pending: [],
      not_paid: [{ currency: 'USD', amount: -30 }],
    });
    for (const id of Object.values(partners))
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
    // The next payout nets it out, though its sale is still archived.
    await sell(server(), p, 'c-pb', 'a3', 500); // pb: 50
    const next = (await act('/v1/payouts', { partner: partners.pb })).body.data;
    assert.deepEqual(
      next.items.map((i) => [i.partner, i.amount, i.commission_count]),
      [[partners.pb, 20, 2]],
    );
    // Revoking the archive brings back what the refund left of the sale, and only that.
    for (const key of ['a1', 'a2'])
      assert.equal((await act(`/v1/transactions/${key}/revoke-archive`)).status, 200);
    assert.deepEqual(await figuresOf(server(), p, partners.pa), {
      paid: 0,
      pending: [],
      not_paid: [{ currency: 'USD', amount: 5 }],
    });
    for (const id of Object.values(partners))
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
    // Deleting the refunded sale later claws back nothing twice.
    assert.equal((await server().request('DELETE', '/v1/transactions/a2', { token: p.token })).status, 200);
    for (const id of Object.values(partners))
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
  });

  test('deleting a partner takes it out of pending payouts; paid ones keep their items and totals', async () => {
    const { p, partners } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 'e1', 100); // pa: 10
    await sell(server(), p, 'c-pb', 'e2', 300); // pb: 30
    const paid = (await post(p, '/v1/payouts')).body.data;
    assert.equal((await post(p, `/v1/payouts/${paid.id}/mark-paid`)).status, 200);
    await sell(server(), p, 'c-pa', 'e3', 200); // pa: 20
    await sell(server(), p, 'c-pb', 'e4', 400); // pb: 40
    const pending = (await post(p, '/v1/payouts')).body.data;
    assert.deepEqual([pending.total, pending.partner_count], [60, 2]);
    const deleted = await server().request('DELETE', `/v1/partners/${partners.pb}`, { token: p.token });
    assert.equal(deleted.status, 200, deleted.text);
    const get = async (id: string) =>
      (await server().request('GET', `/v1/payouts/${id}`, { token: p.token })).body.data;
    const after = await get(pending.id);
    assert.deepEqual(
      [after.status, after.total, after.partner_count, after.items.map((i) => [i.partner, i.amount])],
      ['pending', 20, 1, [[partners.pa, 20]]],
    );
    const history = await get(paid.id);
    assert.deepEqual(
      [history.status, history.total, history.partner_count, history.items.map((i) => [i.partner, i.amount])],
      [
        'paid',
        40,
        2,
        [
          [partners.pa, 10],
          ['', 30],
        ],
      ],
    );
    const csv = await server().request('GET', `/v1/payouts/${paid.id}/export?format=csv`, { token: p.token });
    assert.equal(csv.status, 200, csv.text);
    assert.equal(csv.text.trim().split('\n').length, 3, csv.text);
    // The last partner of a pending payout leaves: the payout is cancelled, not left empty.
    const deletedA = await server().request('DELETE', `/v1/partners/${partners.pa}`, { token: p.token });
    assert.equal(deletedA.status, 200, deletedA.text);
    const empty = await get(pending.id);
    assert.deepEqual([empty.status, empty.total, empty.partner_count, empty.items], ['cancelled', 0, 0, []]);
    assert.equal((await post(p, `/v1/payouts/${pending.id}/mark-paid`)).status, 422);
  });

  test('payout_terms_days: a commission waits that long after approval; minimums are per currency', async () => {
    const clock = new ManualClock();
    const own = await startServer({ dialect: server().dialect, clock });
    try {
      const { p, partners } = await commissionProgram(own, {
        payout_terms_days: 10,
        payout_minimum: { EUR: 100 },
      });
      await sell(own, p, 'c-pa', 't1', 100);
      await sell(own, p, 'c-pa', 't2', 500, 'EUR');
      const create = (body: unknown) => own.request('POST', '/v1/payouts', { token: p.token, body });
      assert.equal((await create({})).status, 422);
      clock.advance(10 * 86_400_000 - 1000);
      assert.equal((await create({})).status, 422, 'not before the terms end');
      clock.advance(1000);
      const made = await create({});
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(made.body.data.items, [
        { partner: partners.pa, amount: 10, commission_count: 1, payout_method: null },
      ]);
      // 50 EUR is below the EUR minimum of 100; USD had none.
      assert.equal((await create({ currency: 'EUR' })).status, 422);
      await sell(own, p, 'c-pa', 't3', 600, 'EUR');
      clock.advance(10 * 86_400_000);
      const eur = await create({ currency: 'EUR' });
      assert.equal(eur.status, 201, eur.text);
      assert.equal(eur.body.data.total, 110);
    } finally {
      await own.close();
    }
  });
});
