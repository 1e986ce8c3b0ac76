import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commissionProgram,
  commissionsOf,
  figuresOf,
  recount,
  sell,
} from '../../../test/commission-factories.ts';
import { describeEachDatabase, ManualClock, recordedEvents } from '../../../test/harness.ts';
import { firstItems, itemAt } from '../../../test/items.ts';
import { createWorker } from '../../worker.ts';
import { settleDueCommissionsOfAllPrograms } from './commissions.service.ts';

describeEachDatabase('commissions', (server) => {
  test('a sale’s commission is a resource: list, fetch, filters', async () => {
    const { p, partners } = await commissionProgram(server());
    await sell(server(), p, 'c-pa', 's1', 100);
    await sell(server(), p, 'c-pb', 's2', 50, 'EUR');
    const all = await commissionsOf(server(), p);
    assert.equal(all.length, 2);
    const [eur, usd] = firstItems(all, 2);
    const { id, created_at, updated_at, due_at, approved_at, ...rest } = usd;
    assert.deepEqual(rest, {
      partner: partners.pa,
      transaction: 's1',
      customer: 'c-pa',
      tier: 1,
      kind: 'sale',
      amount: 10,
      currency: 'USD',
      status: 'approved',
      paid_at: null,
      payout: null,
      reason: null,
      fraud_flag: null,
      description: null,
    });
    assert.equal(due_at, created_at);
    const announced = (await recordedEvents(server(), p)).filter((e) => e.event === 'commission.created');
    assert.deepEqual(
      announced.map((e) => [
        e.payload.id,
        e.payload.partner,
        e.payload.transaction,
        e.payload.customer,
        e.payload.amount,
      ]),
      [
        [id, partners.pa, 's1', 'c-pa', 10],
        [eur.id, eur.partner, 's2', eur.customer, 5],
      ],
    );
    assert.equal(eur.currency, 'EUR');
    assert.equal(eur.amount, 5);
    const one = await server().request('GET', `/v1/commissions/${id}`, { token: p.token });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body.data, usd);

    assert.deepEqual(
      (await commissionsOf(server(), p, `&partner[id]=${partners.pb}`)).map((c) => c.transaction),
      ['s2'],
    );
    assert.deepEqual(
      (await commissionsOf(server(), p, '&partner[email]=pa@example.com')).map((c) => c.transaction),
      ['s1'],
    );
    assert.deepEqual(
      (await commissionsOf(server(), p, '&partner=pb')).map((c) => c.transaction),
      ['s2'],
    );
    assert.deepEqual(
      (await commissionsOf(server(), p, '&transaction=s1')).map((c) => c.id),
      [id],
    );
    assert.deepEqual(
      (await commissionsOf(server(), p, '&currency=eur')).map((c) => c.transaction),
      ['s2'],
    );
    assert.deepEqual((await commissionsOf(server(), p, '&status=pending')).length, 0);
    assert.deepEqual(
      (await commissionsOf(server(), p, '&sort=asc')).map((c) => c.transaction),
      ['s1', 's2'],
    );
    assert.deepEqual(await commissionsOf(server(), p, '&transaction=nope'), []);
    assert.deepEqual(await commissionsOf(server(), p, '&partner[key]=nobody'), []);
    const day = created_at.slice(0, 10);
    assert.equal((await commissionsOf(server(), p, `&created_from=${day}&created_to=${day}`)).length, 2);
    assert.equal((await commissionsOf(server(), p, '&created_to=2000-01-01')).length, 0);
    const bad = await server().request('GET', '/v1/commissions?status=unknown', { token: p.token });
    assert.equal(bad.status, 422);
    assert.ok(bad.error.errors.status);
    const badDate = await server().request('GET', '/v1/commissions?created_from=yesterday', {
      token: p.token,
    });
    assert.equal(badDate.status, 422);
    assert.ok(badDate.error.errors.created_from);
    for (const path of ['/v1/commissions/999999', '/v1/commissions/abc', '/v1/commissions/0']) {
      const missing = await server().request('GET', path, { token: p.token });
      assert.equal(missing.status, 404, path);
    }
  });

  test('another program’s commission is not found, listed, approved or denied', async () => {
    const { p } = await commissionProgram(server());
    const other = await server().newProgram('affiliate');
    await sell(server(), p, 'c-pa', 's1', 100);
    const c = itemAt(await commissionsOf(server(), p));
    assert.equal(
      (await server().request('GET', `/v1/commissions/${c.id}`, { token: other.token })).status,
      404,
    );
    assert.deepEqual(await commissionsOf(server(), other), []);
    for (const action of ['approve', 'deny']) {
      const res = await server().request('POST', `/v1/commissions/${action}`, {
        token: other.token,
        body: { ids: [c.id] },
      });
      assert.equal(res.status, 422);
      assert.deepEqual(res.error.errors, { 'ids.0': ['The selected ids.0 is invalid.'] });
    }
    assert.equal((await commissionsOf(server(), p))[0]?.status, 'approved');
  });

  test('a hold keeps commissions pending; due ones approve themselves, or wait for a person', async () => {
    const clock = new ManualClock();
    const own = await (await import('../../../test/harness.ts')).startServer({
      dialect: server().dialect,
      clock,
    });
    try {
      const { p, partners } = await commissionProgram(own, { commission_hold_days: 30 });
      await sell(own, p, 'c-pa', 's1', 100);
      let c = itemAt(await commissionsOf(own, p));
      assert.equal(c.status, 'pending');
      assert.equal(c.due_at, '2026-02-14T12:00:00.000000Z');
      assert.equal(c.approved_at, null);
      assert.deepEqual(await figuresOf(own, p, partners.pa), {
        paid: 0,
        pending: [{ currency: 'USD', amount: 10 }],
        not_paid: [],
      });
      clock.advance(31 * 86_400_000);
      c = itemAt(await commissionsOf(own, p));
      assert.equal(c.status, 'approved');
      // Reads write nothing: the row is still in review, yet it lists and filters as approved.
      const stored = await own.deps.database.db
        .selectFrom('rewards')
        .select('status')
        .where('id', '=', c.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.status, 'review_period');
      assert.deepEqual(
        (await commissionsOf(own, p, '&status=approved')).map((x) => x.id),
        [c.id],
      );
      assert.deepEqual(await commissionsOf(own, p, '&status=pending'), []);
      assert.deepEqual(await figuresOf(own, p, partners.pa), {
        paid: 0,
        pending: [],
        not_paid: [{ currency: 'USD', amount: 10 }],
      });
      assert.deepEqual(await figuresOf(own, p, partners.pa), await recount(own, p, partners.pa));

      // Without auto approve, a due commission waits for a person.
      const manual = await commissionProgram(own, {
        commission_hold_days: 1,
        commission_auto_approve: false,
      });
      await sell(own, manual.p, 'c-pa', 's1', 100);
      clock.advance(2 * 86_400_000);
      c = itemAt(await commissionsOf(own, manual.p));
      assert.equal(c.status, 'pending');
      assert.deepEqual(
        (await commissionsOf(own, manual.p, '&status=pending')).map((x) => x.id),
        [c.id],
      );
      assert.deepEqual(await commissionsOf(own, manual.p, '&status=approved'), []);
      assert.deepEqual((await figuresOf(own, manual.p, manual.partners.pa)).pending, [
        { currency: 'USD', amount: 10 },
      ]);
      const approved = await own.request('POST', '/v1/commissions/approve', {
        token: manual.p.token,
        body: { ids: [c.id] },
      });
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.body.data[0]?.status, 'approved');
      assert.equal(approved.body.data[0]?.approved_at, '2026-02-17T12:00:00.000000Z');
      assert.deepEqual(await figuresOf(own, manual.p, manual.partners.pa), {
        paid: 0,
        pending: [],
        not_paid: [{ currency: 'USD', amount: 10 }],
      });
      const settings = await own.request('GET', '/v1/program', { token: manual.p.token });
      assert.equal(settings.status, 200);

      // Without a hold too: approving by hand means every commission waits, on both databases.
      const noHold = await commissionProgram(own, { commission_auto_approve: false });
      await sell(own, noHold.p, 'c-pa', 's1', 100);
      const waiting = itemAt(await commissionsOf(own, noHold.p));
      assert.equal(waiting.status, 'pending');
      assert.deepEqual((await figuresOf(own, noHold.p, noHold.partners.pa)).pending, [
        { currency: 'USD', amount: 10 },
      ]);
      clock.advance(30 * 86_400_000);
      assert.equal((await commissionsOf(own, noHold.p))[0]?.status, 'pending', 'time alone approves nothing');
      const byHand = await own.request('POST', '/v1/commissions/approve', {
        token: noHold.p.token,
        body: { ids: [waiting.id] },
      });
      assert.equal(byHand.body.data[0]?.status, 'approved', byHand.text);
      assert.deepEqual(
        await figuresOf(own, noHold.p, noHold.partners.pa),
        await recount(own, noHold.p, noHold.partners.pa),
      );
    } finally {
      await own.close();
    }
  });

  test('the worker settles due commissions in bounded batches, figures along, without a read', async () => {
    const clock = new ManualClock();
    const own = await (await import('../../../test/harness.ts')).startServer({
      dialect: server().dialect,
      clock,
    });
    const worker = createWorker(own.deps, { timeoutMs: 10_000 });
    try {
      const auto = await commissionProgram(own, { commission_hold_days: 30 });
      const manual = await commissionProgram(own, {
        commission_hold_days: 1,
        commission_auto_approve: false,
      });
      await sell(own, auto.p, 'c-pa', 's1', 100);
      await sell(own, auto.p, 'c-pa', 's2', 200);
      await sell(own, auto.p, 'c-pb', 's3', 300);
      await sell(own, manual.p, 'c-pa', 's1', 100);
      const stored = async (programId: number) =>
        (
          await own.deps.database.db
            .selectFrom('rewards')
            .select(['status', 'approved_at'])
            .where('program_id', '=', programId)
            .orderBy('id')
            .execute()
        ).map((row) => [row.status, row.approved_at]);
      assert.equal((await worker.runOnce()).settled, 0, 'nothing is due yet');
      clock.advance(31 * 86_400_000);
      const now = '2026-02-15T12:00:00.000000Z';
      // One row a transaction, two a pass: the rest waits for the next pass.
      assert.equal(await settleDueCommissionsOfAllPrograms(own.deps, { batch: 1, max: 2 }), 2);
      assert.deepEqual(await stored(auto.p.id), [
        ['ok', now],
        ['ok', now],
        ['review_period', null],
      ]);
      assert.equal((await worker.runOnce()).settled, 1);
      assert.equal((await worker.runOnce()).settled, 0);
      assert.deepEqual(await stored(auto.p.id), [
        ['ok', now],
        ['ok', now],
        ['ok', now],
      ]);
      // A program that waits for a person keeps its due commission pending.
      assert.deepEqual(await stored(manual.p.id), [['review_period', null]]);
      for (const id of Object.values(auto.partners))
        assert.deepEqual(await figuresOf(own, auto.p, id), await recount(own, auto.p, id));
      assert.deepEqual(await figuresOf(own, auto.p, auto.partners.pa), {
        paid: 0,
        pending: [],
        not_paid: [{ currency: 'USD', amount: 30 }],
      });
      assert.deepEqual((await figuresOf(own, manual.p, manual.partners.pa)).pending, [
        { currency: 'USD', amount: 10 },
      ]);
    } finally {
      worker.close();
      await own.close();
    }
  });

  test('approve and deny in bulk: all or nothing, each id that cannot move named', async () => {
    const { p, partners } = await commissionProgram(server(), { commission_hold_days: 10 });
    await sell(server(), p, 'c-pa', 's1', 100);
    await sell(server(), p, 'c-pa', 's2', 200);
    await sell(server(), p, 'c-pb', 's3', 300);
    const [c3, c2, c1] = firstItems(await commissionsOf(server(), p), 3);
    const denied = await server().request('POST', '/v1/commissions/deny', {
      token: p.token,
      body: { ids: [c1.id], reason: 'Fraudulent order' },
    });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.data[0]?.status, 'denied');
    assert.equal(denied.body.data[0]?.reason, 'Fraudulent order');

    // One denied id among approvable ones: nothing moves, the denied one is named.
    const refused = await server().request('POST', '/v1/commissions/approve', {
      token: p.token,
      body: { ids: [c2.id, c1.id, c3.id, 987654321] },
    });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.error.errors, {
      'ids.1': [`The commission ${c1.id} is denied and cannot be approved.`],
      'ids.3': ['The selected ids.3 is invalid.'],
    });
    assert.deepEqual(
      (await commissionsOf(server(), p)).map((c) => c.status),
      ['pending', 'pending', 'denied'],
    );
    const ok = await server().request('POST', '/v1/commissions/approve', {
      token: p.token,
      body: { ids: [c2.id, c3.id] },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      ok.body.data.map((c) => [c.id, c.status]),
      [
        [c2.id, 'approved'],
        [c3.id, 'approved'],
      ],
    );
    // Approving again changes nothing and is not an error; denying an approved one works.
    const again = await server().request('POST', '/v1/commissions/approve', {
      token: p.token,
      body: { ids: [c2.id] },
    });
    assert.equal(again.status, 200);
    const deny2 = await server().request('POST', '/v1/commissions/deny', {
      token: p.token,
      body: { ids: [c2.id] },
    });
    assert.equal(deny2.status, 200);
    assert.equal(deny2.body.data[0]?.reason, null);
    for (const id of [partners.pa, partners.pb])
      assert.deepEqual(await figuresOf(server(), p, id), await recount(server(), p, id));
    assert.deepEqual((await figuresOf(server(), p, partners.pb)).not_paid, [{ currency: 'USD', amount: 30 }]);
    assert.deepEqual(await figuresOf(server(), p, partners.pa), { paid: 0, pending: [], not_paid: [] });
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'commission.approved').length, 2);
    assert.equal(events.filter((e) => e === 'commission.denied').length, 2);
  });

  test('bad review bodies: 501 ids, none, duplicates, non-integers', async () => {
    const { p } = await commissionProgram(server());
    const ids = Array.from({ length: 501 }, (_, i) => i + 1);
    const cases: [unknown, string][] = [
      [{ ids }, 'ids'],
      [{ ids: [] }, 'ids'],
      [{}, 'ids'],
      [{ ids: ['x'] }, 'ids.0'],
      [{ ids: [1, 1] }, 'ids.1'],
      [{ ids: [1], reason: 'r'.repeat(1001) }, 'reason'],
    ];
    for (const [body, field] of cases) {
      const res = await server().request('POST', '/v1/commissions/approve', { token: p.token, body });
      assert.equal(res.status, 422, JSON.stringify(body).slice(0, 50));
      assert.ok(res.error.errors[field], `${field}: ${res.text}`);
    }
    const many = await server().request('POST', '/v1/commissions/deny', { token: p.token, body: { ids } });
    assert.equal(many.error.errors.ids?.[0], 'The ids field must not have more than 500 items.');
  });

  test('manual commissions: bonuses and corrections, approved at once, in the figures', async () => {
    const { p, partners } = await commissionProgram(server());
    const bonus = await server().request('POST', '/v1/commissions', {
      token: p.token,
      body: {
        partner: { email: 'pa@example.com' },
        amount: '25.50',
        currency: 'eur',
        description: 'Launch bonus',
      },
    });
    assert.equal(bonus.status, 201, bonus.text);
    assert.equal(bonus.body.data.status, 'approved');
    assert.equal(bonus.body.data.kind, 'manual');
    assert.equal(bonus.body.data.transaction, null);
    assert.equal(bonus.body.data.amount, 25.5);
    assert.equal(bonus.body.data.currency, 'EUR');
    const correction = await server().request('POST', '/v1/commissions', {
      token: p.token,
      body: { partner: partners.pa, amount: -0.5, description: 'Correction' },
    });
    assert.equal(correction.status, 201, correction.text);
    assert.equal(correction.body.data.currency, 'USD');
    assert.deepEqual(await figuresOf(server(), p, partners.pa), {
      paid: 0,
      pending: [],
      not_paid: [
        { currency: 'EUR', amount: 25.5 },
        { currency: 'USD', amount: -0.5 },
      ],
    });
    const events = await recordedEvents(server(), p);
    assert.equal(events.filter((e) => e.event === 'commission.created').length, 2);
    const bad: [unknown, string][] = [
      [{ partner: 'nobody', amount: 1, description: 'x' }, 'partner'],
      [{ partner: partners.pa, amount: 'ten', description: 'x' }, 'amount'],
      [{ partner: partners.pa, amount: 0, description: 'x' }, 'amount'],
      [{ partner: partners.pa, amount: 1.0000001, description: 'x' }, 'amount'],
      [{ partner: partners.pa, amount: 1, description: 'x', currency: 'XXQ' }, 'currency'],
      [{ partner: partners.pa, amount: 1 }, 'description'],
    ];
    for (const [body, field] of bad) {
      const res = await server().request('POST', '/v1/commissions', { token: p.token, body });
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(res.error.errors[field], `${field}: ${res.text}`);
    }
    assert.equal((await commissionsOf(server(), p)).length, 2);
  });

  test('random sequences of sales, reviews, manual commissions, archives, refunds and payouts keep figures equal to a recount', async () => {
    const { p, partners } = await commissionProgram(server(), {
      commission_hold_days: 5,
      payout_minimum: { USD: 5 },
    });
    let seed = 42;
    const random = (n: number) => {
      // A linear congruential generator's low bits repeat quickly: use the high ones.
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor(seed / 65_536) % n;
    };
    const sales: string[] = [];
    const payouts: string[] = [];
    const done: Record<string, number> = {};
    const count = (op: string, res: { status: number }) => {
      if (res.status < 300) done[op] = (done[op] ?? 0) + 1;
    };
    const post = <const P extends string>(path: P, body: unknown = {}) =>
      server().request('POST', path, { token: p.token, body });
    const check = async (step: number) => {
      for (const id of [partners.pa, partners.pb])
        assert.deepEqual(
          await figuresOf(server(), p, id),
          await recount(server(), p, id),
          `after step ${step}`,
        );
    };
    for (let step = 0; step < 90; step++) {
      const op = random(10);
      const buyer = random(2) === 0 ? 'c-pa' : 'c-pb';
      if (op <= 1 || sales.length === 0) {
        const key = `r${step}`;
        await sell(
          server(),
          p,
          buyer,
          key,
          `${1 + random(500)}.${random(100)}`,
          random(3) === 0 ? 'EUR' : 'USD',
        );
        sales.push(key);
      } else if (op === 2 || op === 3) {
        const list = await commissionsOf(server(), p);
        const movable = list.filter((c) =>
          op === 2
            ? c.status === 'pending'
            : (c.status === 'pending' || c.status === 'approved') && c.payout === null,
        );
        const ids = movable.filter(() => random(2) === 0).map((c) => c.id);
        if (ids.length === 0) continue;
        count(
          op === 2 ? 'approve' : 'deny',
          await post(`/v1/commissions/${op === 2 ? 'approve' : 'deny'}`, { ids }),
        );
      } else if (op === 4) {
        const amount = random(2000) / 100 - 5 || 1;
        count(
          'manual',
          await post('/v1/commissions', {
            partner: random(2) === 0 ? partners.pa : partners.pb,
            amount,
            description: 'adj',
          }),
        );
      } else if (op === 5) {
        const key = itemAt(sales, random(sales.length));
        const action = random(5);
        if (action === 0) {
          const res = await server().request('DELETE', `/v1/transactions/${key}`, { token: p.token });
          count('delete', res);
          if (res.status === 200) sales.splice(sales.indexOf(key), 1);
        } else
          count(
            'archive',
            await post(`/v1/transactions/${key}/${action <= 2 ? 'archive' : 'revoke-archive'}`),
          );
      } else if (op === 6) {
        const key = itemAt(sales, random(sales.length));
        count(
          'refund',
          await post(`/v1/transactions/${key}/refund`, random(2) === 0 ? {} : { amount: random(100) + 1 }),
        );
      } else if (op === 7) {
        const res = await post('/v1/payouts', { currency: random(3) === 0 ? 'EUR' : 'USD' });
        count('payout', res);
        if (res.status === 201) payouts.push(res.body.data.id);
      } else if (payouts.length > 0) {
        const id = itemAt(payouts, random(payouts.length));
        count(
          op === 8 ? 'mark-paid' : 'cancel',
          await post(`/v1/payouts/${id}/${op === 8 ? 'mark-paid' : 'cancel'}`),
        );
      }
      if (step % 30 === 29) await check(step);
    }
    await check(90);
    for (const op of [
      'approve',
      'deny',
      'manual',
      'archive',
      'delete',
      'refund',
      'payout',
      'mark-paid',
      'cancel',
    ])
      assert.ok((done[op] ?? 0) > 0, `the sequence made at least one ${op} (${JSON.stringify(done)})`);
  });

  test('program settings: commission_auto_approve, payout_minimum, payout_terms_days, with defaults', async () => {
    const p = await server().newProgram('affiliate');
    const settings = async () =>
      (await server().request('GET', '/v1/program', { token: p.token })).body.data.program.program_settings;
    const before = await settings();
    assert.equal(before.commission_auto_approve, true);
    assert.deepEqual(before.payout_minimum, {});
    assert.equal(before.payout_terms_days, 0);
    const bad: [unknown, string][] = [
      [{ commission_auto_approve: 'sometimes' }, 'program_settings.commission_auto_approve'],
      [{ payout_minimum: { USD: -1 } }, 'program_settings.payout_minimum.USD'],
      [{ payout_minimum: { USD: 'ten' } }, 'program_settings.payout_minimum.USD'],
      [{ payout_terms_days: -1 }, 'program_settings.payout_terms_days'],
      [{ payout_terms_days: 4000 }, 'program_settings.payout_terms_days'],
    ];
    for (const [program_settings, field] of bad) {
      const res = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings },
      });
      assert.equal(res.status, 422, JSON.stringify(program_settings));
      assert.ok(res.error.errors[field], `${field}: ${res.text}`);
    }
    const ok = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: {
        program_settings: {
          commission_auto_approve: false,
          payout_minimum: { USD: 50, EUR: 40.5 },
          payout_terms_days: 30,
        },
      },
    });
    assert.equal(ok.status, 200, ok.text);
    const after = await settings();
    assert.equal(after.commission_auto_approve, false);
    assert.deepEqual(after.payout_minimum, { USD: 50, EUR: 40.5 });
    assert.equal(after.payout_terms_days, 30);
  });
});
