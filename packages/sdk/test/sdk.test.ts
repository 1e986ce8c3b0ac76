import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../../../test/harness.ts';
import { VouchError } from '../src/index.ts';
import { losingFirstAnswer, recordedSleep, vouchFor } from './fixtures.ts';

describeEachDatabase('SDK against a running Vouch', (server) => {
  test('creates a partner and reads it back, typed from the API description', async () => {
    const program = await server().newProgram('affiliate');
    const vouch = vouchFor(server(), program);
    const created = await vouch.partners.create({ email: 'ada@example.com', name: 'Ada', key: 'ada' });
    assert.equal(created.email, 'ada@example.com');
    const fetched = await vouch.partners.get(created.id);
    assert.equal(fetched.id, created.id);
    assert.equal(fetched.name, 'Ada');
    // The same record as the API answers it to a plain request.
    const plain = await server().request('GET', `/v1/partners/${created.id}`, { token: program.token });
    assert.deepEqual(fetched, plain.body.data);
    assert.equal((await vouch.partners.get('ada')).id, created.id, 'by link key too');
  });

  test('iterates a list across pages, following the API until links.next is null', async () => {
    const program = await server().newProgram('affiliate');
    const vouch = vouchFor(server(), program);
    const emails = Array.from({ length: 5 }, (_, i) => `p${i}@example.com`);
    for (const email of emails) await vouch.partners.create({ email });

    const listed: string[] = [];
    for await (const partner of vouch.partners.list({ limit: 2, sort: 'asc' })) listed.push(partner.email);
    assert.deepEqual(listed, emails);

    const pages = [];
    for await (const page of vouch.partners.list({ limit: 2 }).pages()) pages.push(page.data.length);
    assert.deepEqual(pages, [2, 2, 1]);
    const second = await vouch.partners.list({ limit: 2, page: 2, sort: 'asc' }).page();
    assert.deepEqual(
      second.data.map((p) => p.email),
      emails.slice(2, 4),
    );
    assert.deepEqual(
      (await vouch.partners.list({ limit: 2, page: 3 }).all()).length,
      1,
      'iteration starts at page',
    );
  });

  test('a 422 is a VouchError with the status, the message and the field errors', async () => {
    const program = await server().newProgram('affiliate');
    const vouch = vouchFor(server(), program);
    await vouch.partners.create({ email: 'taken@example.com' });
    const error = await vouch.partners.create({ email: 'taken@example.com' }).then(
      () => assert.fail('a taken e-mail is refused'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof VouchError);
    assert.equal(error.status, 422);
    assert.deepEqual(error.errors, { email: ['The email has already been taken.'] });
    assert.equal(error.message, 'The email has already been taken.');
    assert.deepEqual(error.fieldErrors('email'), ['The email has already been taken.']);
    assert.match(error.requestId ?? '', /./);

    const missing = await vouch.partners.get('nobody').catch((e: unknown) => e);
    assert.ok(missing instanceof VouchError);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.errors, {});
  });

  test('a sale whose answer was lost is sent again with the same body and recorded once', async () => {
    const program = await server().newProgram('affiliate');
    const lossy = losingFirstAnswer((request) => request.method === 'POST');
    const { sleeps, sleep } = recordedSleep();
    const vouch = vouchFor(server(), program, { fetch: lossy.fetch, retry: { sleep } });
    await vouchFor(server(), program).partners.create({ email: 'seller@example.com', key: 'seller' });

    const sale = await vouch.transactions.create({
      key: 'order-1001',
      amount: '99.99',
      action: 'sale',
      customer: { key: 'buyer', email: 'buyer@example.com', partner: { key: 'seller' } },
      options: { create_customer: true },
    });
    assert.equal(lossy.seen.length, 2, 'sent twice');
    assert.equal(lossy.seen[0], lossy.seen[1], 'with the same body');
    assert.deepEqual(sleeps, [500]);
    assert.ok(!Array.isArray(sale));
    assert.equal(sale.key, 'order-1001');

    const stored = await server().request('GET', '/v1/transactions', { token: program.token });
    assert.deepEqual(
      stored.body.data.map((t: { key: string }) => t.key),
      ['order-1001'],
    );
    const commissions = await server().request('GET', '/v1/commissions', { token: program.token });
    assert.equal(commissions.body.data.length, 1, 'one reward');
  });

  test('a create without a business key is not sent again: the lost answer is a VouchError', async () => {
    const program = await server().newProgram('affiliate');
    const lossy = losingFirstAnswer((request) => request.method === 'POST');
    const vouch = vouchFor(server(), program, { fetch: lossy.fetch });
    const error = await vouch.partners.create({ email: 'once@example.com' }).catch((e: unknown) => e);
    assert.ok(error instanceof VouchError);
    assert.equal(error.status, 0);
    assert.ok(error.cause instanceof TypeError);
    assert.equal(lossy.seen.length, 1);
    const partners = await vouchFor(server(), program).partners.list().all();
    assert.deepEqual(
      partners.map((p) => p.email),
      ['once@example.com'],
    );
  });

  test("a 429 is retried after the answer's Retry-After", async () => {
    const program = await server().newProgram('affiliate');
    let refused = 0;
    const busyOnce = async (request: Request) => {
      if (refused++ > 0) return fetch(request);
      return new Response(JSON.stringify({ message: 'Too Many Attempts.', errors: {}, status: 0 }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '7' },
      });
    };
    const { sleeps, sleep } = recordedSleep();
    const vouch = vouchFor(server(), program, { fetch: busyOnce, retry: { sleep } });
    const overview = await vouch.program.get();
    assert.deepEqual(sleeps, [7000]);
    assert.equal(overview.program.name, 'affiliate program');
  });
});

describeEachDatabase(
  'SDK against a rate-limited Vouch',
  (server) => {
    test('honours the real Retry-After, within its bounds, then surfaces the 429', async () => {
      const program = await server().newProgram('affiliate');
      const { sleeps, sleep } = recordedSleep();
      const vouch = vouchFor(server(), program, { retry: { sleep, retries: 2 } });
      for (let i = 0; i < 2; i++) await vouch.program.get();
      const error = await vouch.program.get().catch((e: unknown) => e);
      assert.ok(error instanceof VouchError);
      assert.equal(error.status, 429);
      const retryAfter = error.retryAfter ?? assert.fail('a 429 says when to retry');
      assert.ok(retryAfter > 0 && retryAfter <= 60);
      assert.equal(sleeps.length, 2, 'two retries, each after the wait the server asked for');
      for (const ms of sleeps) assert.ok(ms > 0 && ms <= 60_000, `${ms} ms`);

      const impatient = vouchFor(server(), program, { retry: { sleep, maxDelayMs: 100 } });
      const waited = sleeps.length;
      assert.equal(((await impatient.program.get().catch((e: unknown) => e)) as VouchError).status, 429);
      assert.equal(sleeps.length, waited, 'a wait beyond maxDelayMs is not waited for');
    });
  },
  { env: { RATE_LIMIT_PER_MINUTE: '2' } },
);
