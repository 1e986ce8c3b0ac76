import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

describeEachDatabase('customers (affiliate)', (server) => {
  const partner = async (
    program: TestProgram<'affiliate'>,
    key: string,
    extra: Record<string, unknown> = {},
  ) => {
    const res = await server().request('POST', '/v1/partners', {
      token: program.token,
      body: { email: `${key}@partners.example`, key, ...extra },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const create = (program: TestProgram<'affiliate'>, body: Record<string, unknown>) =>
    server().request('POST', '/v1/customers', { token: program.token, body });
  const partnerFigures = async (program: TestProgram<'affiliate'>, id: string) =>
    (await server().request('GET', `/v1/partners/${id}`, { token: program.token })).body.data;
  const customerCount = async (program: TestProgram<'affiliate'>) =>
    Number(
      (
        await server()
          .deps.database.db.selectFrom('customers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('program_id', '=', program.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('create answers 201 with the affiliate shape and counts a signup for the partner', async () => {
    const p = await server().newProgram('affiliate');
    const owner = await partner(p, 'pk1');
    const res = await create(p, {
      key: 'cust-1',
      email: 'buyer@example.com',
      name: 'Bo',
      partner: { key: 'pk1' },
      tags: ['new'],
    });
    assert.equal(res.status, 201, res.text);
    const { created_at, updated_at, ...rest } = res.body.data;
    assert.deepEqual(rest, {
      key: 'cust-1',
      partner: owner.id,
      deleted: false,
      name: 'Bo',
      surname: null,
      email: 'buyer@example.com',
      deleted_at: null,
      tags: [{ value: 'new' }],
    });
    assert.match(created_at, /Z$/);
    const figures = await partnerFigures(p, owner.id);
    assert.equal(figures.referrals.signups, 1);
    assert.equal(figures.referrals_count, 1);
    const overview = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(overview.total_customers, 1);
    assert.equal(overview.total_referred_customers, 1);
  });

  test('partner by id or email; options.referral_url must be a link of that partner; nested form', async () => {
    const p = await server().newProgram('affiliate');
    const a = await partner(p, 'pa');
    await partner(p, 'pb');
    assert.equal((await create(p, { key: 'c1', partner: { id: a.id } })).status, 201);
    assert.equal((await create(p, { key: 'c2', partner: { email: a.email } })).status, 201);
    const url = await create(p, {
      key: 'c3',
      partner: { key: 'pa' },
      options: { referral_url: 'https://shop.example.com?aff=pa' },
    });
    assert.equal(url.status, 201, url.text);
    const wrong = await create(p, {
      key: 'c4',
      partner: { key: 'pa' },
      options: { referral_url: 'https://shop.example.com?aff=pb' },
    });
    assert.equal(wrong.status, 422);
    assert.ok(wrong.error.errors['options.referral_url']);
    const nested = await server().request('POST', '/v1/customer', {
      token: p.token,
      body: { customer: { key: 'c5', email: 'c5@example.com' }, partner: { key: 'pa' } },
    });
    assert.equal(nested.status, 201, nested.text);
    assert.equal(nested.body.data.partner, a.id);
    assert.equal((await partnerFigures(p, a.id)).referrals.signups, 4);
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    ['a missing key', { partner: { key: 'p0' } }, 'key', 'The key field is required.'],
    ['a missing partner', { key: 'k' }, 'partner', 'The partner field is required.'],
    [
      'an unknown partner',
      { key: 'k', partner: { key: 'ghost' } },
      'partner',
      'The selected partner is invalid.',
    ],
    [
      'a malformed email',
      { key: 'k', email: 'x', partner: { key: 'p0' } },
      'email',
      'The email field must be a valid email address.',
    ],
  ];
  for (const [name, body, field, message] of invalid) {
    test(`create rejects ${name} with 422 on ${field}`, async () => {
      const p = await server().newProgram('affiliate');
      await partner(p, 'p0');
      const res = await create(p, body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors[field], [message]);
      assert.equal(await customerCount(p), 0);
    });
  }

  test('a duplicate key or email answers 422 on that field; an archived partner takes no customers', async () => {
    const p = await server().newProgram('affiliate');
    const a = await partner(p, 'pd');
    await create(p, { key: 'same', email: 'same@example.com', partner: { key: 'pd' } });
    const key = await create(p, { key: 'same', partner: { key: 'pd' } });
    assert.deepEqual(key.error.errors, { key: ['The key has already been taken.'] });
    const email = await create(p, { key: 'other', email: 'same@example.com', partner: { key: 'pd' } });
    assert.deepEqual(email.error.errors, { email: ['The email has already been taken.'] });
    await server().request('POST', `/v1/partners/${a.id}/archive`, { token: p.token });
    const archived = await create(p, { key: 'late', partner: { key: 'pd' } });
    assert.equal(archived.status, 422);
    assert.deepEqual(archived.error.errors, { partner: ['The selected partner is archived.'] });
    assert.equal(await customerCount(p), 1);
    assert.equal((await partnerFigures(p, a.id)).referrals.signups, 1);
  });

  test('fetch by key, list without tags, filters by partner, search by key or email', async () => {
    const p = await server().newProgram('affiliate');
    const other = await server().newProgram('affiliate');
    const a = await partner(p, 'pf');
    await partner(p, 'pg');
    await create(p, { key: 'f1', email: 'f1@example.com', partner: { key: 'pf' } });
    await create(p, { key: 'f2', partner: { key: 'pg' } });
    const one = await server().request('GET', '/v1/customers/f1', { token: p.token });
    assert.equal(one.body.data.partner, a.id);
    assert.deepEqual(one.body.data.tags, []);
    assert.equal((await server().request('GET', '/v1/customers/nope', { token: p.token })).status, 404);
    assert.equal((await server().request('GET', '/v1/customers/f1', { token: other.token })).status, 404);
    const list = await server().request('GET', '/v1/customers', { token: p.token });
    assert.deepEqual(
      list.body.data.map((c: { key: string }) => c.key),
      ['f2', 'f1'],
    );
    assert.equal('tags' in itemAt(list.body.data), false);
    for (const query of [
      'partner_key=pf',
      'partner[key]=pf',
      `partner_email=${a.email}`,
      `partner[id]=${a.id}`,
    ]) {
      const res = await server().request('GET', `/v1/customers?${query}`, { token: p.token });
      assert.deepEqual(
        res.body.data.map((c: { key: string }) => c.key),
        ['f1'],
        query,
      );
    }
    assert.deepEqual(
      (await server().request('GET', '/v1/customers?partner_key=none', { token: p.token })).body.data,
      [],
    );
    const older = await server().request('GET', '/v1/customers', { token: p.token, body: { key: 'f1' } });
    assert.deepEqual(
      older.body.data.map((c: { key: string }) => c.key),
      ['f1'],
    );
    for (const query of ['key=f1', 'email=f1@example.com']) {
      const res = await server().request('GET', `/v1/customers:search?${query}`, { token: p.token });
      assert.deepEqual(
        res.body.data.map((c: { key: string }) => c.key),
        ['f1'],
        query,
      );
    }
  });

  test('update by path (flat or wrapped) or by body key or email', async () => {
    const p = await server().newProgram('affiliate');
    await partner(p, 'pu');
    await create(p, { key: 'u1', email: 'u1@example.com', partner: { key: 'pu' }, tags: ['a'] });
    let res = await server().request('PUT', '/v1/customers/u1', { token: p.token, body: { name: 'Flat' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Flat');
    assert.deepEqual(res.body.data.tags, [{ value: 'a' }]);
    res = await server().request('PUT', '/v1/customers/u1', {
      token: p.token,
      body: { update: { tags: [] } },
    });
    assert.deepEqual(res.body.data.tags, []);
    res = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { key: 'u1', update: { key: 'u1b', surname: 'S' } },
    });
    assert.equal(res.body.data.key, 'u1b');
    res = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { email: 'u1@example.com', name: 'E' },
    });
    assert.equal(res.body.data.name, 'E');
    const missing = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { key: 'ghost', name: 'x' },
    });
    assert.equal(missing.status, 404);
  });

  test('delete removes the transactions and rewards and takes back every figure they fed', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = await partner(p, 'px');
    await create(p, { key: 'd1', partner: { key: 'px' } });
    await create(p, { key: 'd2', partner: { key: 'px' } });
    for (const [key, amount] of [
      ['t1', 100],
      ['t2', 50],
    ] as const) {
      const res = await server().request('POST', '/v1/transactions', {
        token: p.token,
        body: { key, amount, action: 'sale', customer: { key: 'd1' } },
      });
      assert.equal(res.status, 200, res.text);
    }
    await server().request('POST', '/v1/transactions', {
      token: p.token,
      body: { key: 't3', amount: 10, action: 'sale', customer: { key: 'd2' } },
    });
    const txs = await server().request('GET', '/v1/customers/d1/transactions', { token: p.token });
    assert.deepEqual(
      txs.body.data.map((t: { key: string }) => t.key),
      ['t2', 't1'],
    );
    let figures = await partnerFigures(p, a.id);
    assert.equal(figures.referrals.sales_count, 3);
    assert.equal(figures.referrals.paid_accounts, 2);
    assert.deepEqual(figures.commissions.not_paid, [{ currency: 'USD', amount: 32 }]);

    assert.deepEqual((await server().request('DELETE', '/v1/customers/d1', { token: p.token })).body, {
      status: 1,
    });
    figures = await partnerFigures(p, a.id);
    assert.deepEqual(figures.referrals, {
      clicks: 0,
      signups: 1,
      revenue: [{ currency: 'USD', amount: 10 }],
      sales_count: 1,
      paid_accounts: 1,
    });
    assert.deepEqual(figures.commissions.not_paid, [{ currency: 'USD', amount: 2 }]);
    assert.equal((await server().request('GET', '/v1/transactions/t1', { token: p.token })).status, 404);
    const overview = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(overview.total_customers, 1);
    assert.equal(overview.total_sales, 1);

    const byBody = await server().request('DELETE', '/v1/customers', { token: p.token, body: { key: 'd2' } });
    assert.deepEqual(byBody.body, { status: 1 });
    figures = await partnerFigures(p, a.id);
    assert.equal(figures.referrals.signups, 0);
    assert.deepEqual(figures.commissions.not_paid, []);
    const unknown = await server().request('DELETE', '/v1/customers', {
      token: p.token,
      body: { email: 'x@example.com' },
    });
    assert.equal(unknown.status, 404);
    const names = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(names.filter((n) => n === 'customer.deleted').length, 2);
    assert.equal(names.filter((n) => n === 'transaction.deleted').length, 3);
  });
});
