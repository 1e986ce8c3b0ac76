import assert from 'node:assert/strict';
import { test } from 'node:test';
import { affiliateProgramWithBuyer } from './factories.ts';
import { describeEachDatabase, type TestProgram, type TestServer } from './harness.ts';

/**
 * Expected outcomes are answered by the data layer, not raised by the database (ADR 0053): a taken
 * e-mail, id or key, a replayed sale and a buyer changed under a sale answer as they always did,
 * and no statement fails in the database on the way, so its server log keeps only what an
 * operator must act on.
 */

/** The statements the database refused since `mark`, as their text (the first line of each). */
function failedSince(server: TestServer, mark: number): string[] {
  return server.failedQueries.slice(mark).map(({ sql, error }) => {
    const message = error instanceof Error ? error.message : String(error);
    return `${message} — ${sql}`;
  });
}

const taken = (field: string) => ({ [field]: [`The ${field} has already been taken.`] });

describeEachDatabase('expected conflicts fail no statement', (server) => {
  const post = (p: TestProgram, path: string, body: unknown) =>
    server().request<{ data: { id: string } }>('POST', path, { token: p.token, body });

  test('a taken partner e-mail (either case), id or link key: 422 on the field', async () => {
    const p = await server().newProgram('affiliate');
    const first = await post(p, '/v1/partners', { email: 'Dup@Example.com', key: 'dupkey' });
    assert.equal(first.status, 201, first.text);
    const mark = server().failedQueries.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'Dup@Example.com' }, 'email'],
      [{ email: 'dup@example.com' }, 'email'],
      [{ email: 'x1@example.com', id: first.body.data.id }, 'id'],
      [{ email: 'x2@example.com', key: 'dupkey' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await post(p, '/v1/partners', body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors, taken(field));
    }
    const link = await post(p, '/v1/partner_referral_links', { key: 'dupkey', partner: { key: 'dupkey' } });
    assert.deepEqual(link.error.errors, taken('key'));
    const other = await post(p, '/v1/partners', { email: 'other@example.com' });
    assert.equal(other.status, 201, other.text);
    const renamed = await server().request('PUT', `/v1/partners/${other.body.data.id}`, {
      token: p.token,
      body: { update: { email: 'DUP@example.com' } },
    });
    assert.deepEqual(renamed.error.errors, taken('update.email'));
    assert.deepEqual(failedSince(server(), mark), []);
  });

  test('a taken customer id, key or e-mail: 422 on the field', async () => {
    const referral = await server().newProgram('referral');
    const affiliate = await server().newProgram('affiliate');
    assert.equal((await post(affiliate, '/v1/partners', { email: 'p@example.com', key: 'pk' })).status, 201);
    const mark = server().failedQueries.length;
    const one = { id: 'one', key: 'one-key', email: 'one@example.com' };
    assert.equal((await post(referral, '/v1/customers', one)).status, 201);
    for (const field of ['id', 'key', 'email'] as const) {
      const body = { id: 'two', key: 'two-key', email: 'two@example.com', [field]: one[field] };
      const res = await post(referral, '/v1/customers', body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors, taken(field));
    }
    const buyer = { key: 'ck', email: 'ck@example.com', partner: { key: 'pk' } };
    assert.equal((await post(affiliate, '/v1/customers', buyer)).status, 201);
    for (const [body, field] of [
      [{ key: 'ck', partner: { key: 'pk' } }, 'key'],
      [{ key: 'other', email: 'CK@example.com', partner: { key: 'pk' } }, 'email'],
    ] as const) {
      const res = await post(affiliate, '/v1/customers', body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors, taken(field));
    }
    assert.deepEqual(failedSince(server(), mark), []);
  });

  test('a taken webhook key, subscriber e-mail or portal host: 422 on the field', async () => {
    const p = await server().newProgram('newsletter');
    const [own, other] = [await server().newProgram('affiliate'), await server().newProgram('affiliate')];
    const mark = server().failedQueries.length;
    const hook = {
      key: 'hook',
      name: 'Orders',
      url: 'https://hooks.example.com/vouch',
      events: ['subscriber.created'],
    };
    assert.equal((await post(p, '/v1/webhooks', hook)).status, 200);
    assert.deepEqual((await post(p, '/v1/webhooks', hook)).error.errors, taken('key'));
    const one = await post(p, '/v1/subscribers', { email: 'one@example.com' });
    assert.ok(one.status < 300, one.text);
    const two = await post(p, '/v1/subscribers', { email: 'two@example.com' });
    assert.ok(two.status < 300, two.text);
    const renamed = await server().request('PUT', `/v1/subscribers/${two.body.data.id}`, {
      token: p.token,
      body: { update: { email: 'ONE@example.com' } },
    });
    assert.deepEqual(renamed.error.errors, taken('update.email'));
    const host = `portal-${p.publicId.toLowerCase()}.example.com`;
    const setHost = (program: TestProgram) =>
      server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: { portal_host: host } },
      });
    assert.equal((await setHost(own)).status, 200);
    const hostTaken = await setHost(other);
    assert.equal(hostTaken.status, 422, hostTaken.text);
    assert.deepEqual(Object.keys(hostTaken.error.errors), ['program_settings.portal_host']);
    assert.deepEqual(failedSince(server(), mark), []);
  });

  test('a replayed sale answers the stored one; another with its key is a 422', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    const mark = server().failedQueries.length;
    const body = { key: 'pay-1', amount: '10.00', action: 'sale', customer: { key: 'ck' } };
    const first = await post(p, '/v1/transactions', body);
    assert.equal(first.status, 200, first.text);
    const again = await post(p, '/v1/transactions', body);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, first.body);
    const other = await post(p, '/v1/transactions', { ...body, amount: '11.00' });
    assert.deepEqual(other.error.errors, taken('key'));
    assert.deepEqual(failedSince(server(), mark), []);
  });

  test('sales of one buyer at once, each deciding the next: all stored, none failing in the database', async () => {
    const { p } = await affiliateProgramWithBuyer(server());
    // A commission for the first 1,000 sales: every sale counts for the next, so sales read
    // together find their buyer changed and decide again.
    const commission = { type: 'fixed', value: 1, duration: 'times', duration_value: 1000 };
    const put = await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { program_settings: { commission } },
    });
    assert.equal(put.status, 200, put.text);
    const mark = server().failedQueries.length;
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(p, '/v1/transactions', {
          key: `at-once-${i}`,
          amount: '5.00',
          action: 'sale',
          customer: { key: 'ck' },
        }),
      ),
    );
    for (const reply of replies) assert.equal(reply.status, 200, reply.text);
    const listed = await server().request('GET', '/v1/transactions?limit=250', { token: p.token });
    assert.equal(listed.body.data.length, 20);
    const partner = await server().request('GET', '/v1/partners?limit=1', { token: p.token });
    const [entry] = partner.body.data;
    assert.ok(entry);
    const detail = await server().request('GET', `/v1/partners/${entry.id}`, { token: p.token });
    // Each decided on the sales before it, and counted once.
    assert.equal(detail.body.data.referrals.sales_count, 20);
    assert.deepEqual(failedSince(server(), mark), []);
  });
});
