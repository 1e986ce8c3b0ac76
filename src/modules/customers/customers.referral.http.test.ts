import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

const entryKeys = [
  'approved',
  'created_at',
  'custom_fields',
  'email',
  'id',
  'name',
  'status',
  'surname',
  'updated_at',
];

describeEachDatabase('refer-a-friend customers', (server) => {
  const create = (p: TestProgram<'referral'>, body: unknown) =>
    server().request('POST', '/v1/customers', { token: p.token, body });
  const get = (p: TestProgram<'referral'>, id: string) =>
    server().request('GET', `/v1/customers/${encodeURIComponent(id)}`, { token: p.token });

  test('create answers the full record with generated id and key and the default link', async () => {
    const p = await server().newProgram('referral', { website: 'https://shop.example.com' });
    const res = await create(p, {
      email: 'ann@example.com',
      name: 'Ann',
      metadata: { date_of_birth: '1990-02-28' },
    });
    assert.equal(res.status, 201, res.text);
    const c = res.body.data;
    assert.match(c.id, /^[A-Za-z0-9]{12}$/);
    assert.match(c.key, /^[A-Za-z0-9]{12}$/);
    assert.equal(c.email, 'ann@example.com');
    assert.equal(c.status, 'active');
    assert.equal(c.referring_customer, null);
    assert.equal(c.referrals_count, 0);
    assert.deepEqual(c.metadata, { date_of_birth: '1990-02-28' });
    assert.equal(c.referral_link, `https://shop.example.com?ref=${c.key}`);
    assert.deepEqual(c.referral_links, [c.referral_link]);
    assert.deepEqual(c.custom_fields, []);
    assert.equal(c.tos, false);
    assert.equal(c.approved, true);
    assert.deepEqual((await get(p, c.id)).body.data, c);
  });

  test('referring_customer by id wins over key; the referrer record is embedded and counts it', async () => {
    const p = await server().newProgram('referral');
    const a = (await create(p, { id: 'ref-a', key: 'alice', email: 'a@example.com' })).body.data;
    await create(p, { id: 'ref-b', key: 'bob', email: 'b@example.com' });
    const res = await create(p, {
      email: 'c@example.com',
      referring_customer: { id: 'ref-a', key: 'bob' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.referring_customer?.id, a.id);
    assert.equal(res.body.data.referring_customer?.key, 'alice');
    assert.equal(res.body.data.referring_customer?.referrals_count, 1);
    const byKey = await create(p, { email: 'd@example.com', referring_customer: { key: 'bob' } });
    assert.equal(byKey.body.data.referring_customer?.id, 'ref-b');
    assert.equal((await get(p, 'ref-a')).body.data.referrals_count, 1);
    // The path also takes the key.
    assert.equal((await get(p, 'alice')).body.data.id, 'ref-a');
  });

  const bad: [string, unknown, string][] = [
    [
      'an unknown referrer',
      { email: 'x@example.com', referring_customer: { id: 'nobody' } },
      'referring_customer',
    ],
    ['an empty referrer', { email: 'x@example.com', referring_customer: {} }, 'referring_customer.id'],
    [
      'self-referral',
      { id: 'me', email: 'x@example.com', referring_customer: { id: 'me' } },
      'referring_customer',
    ],
    [
      'a bad date of birth',
      { email: 'x@example.com', metadata: { date_of_birth: '1990-02-30' } },
      'metadata.date_of_birth',
    ],
    [
      'a date of birth in another format',
      { email: 'x@example.com', metadata: { date_of_birth: '02/03/1990' } },
      'metadata.date_of_birth',
    ],
    ['a bad email', { email: 'nope' }, 'email'],
    ['no email', { name: 'Nobody' }, 'email'],
    ['an affiliate-only partner', { email: 'x@example.com', partner: { key: 'p' } }, 'partner'],
  ];
  for (const [name, body, field] of bad) {
    test(`create rejects ${name} with 422 on ${field}, storing nothing`, async () => {
      const p = await server().newProgram('referral');
      const res = await create(p, body);
      assert.equal(res.status, 422, res.text);
      assert.ok(res.error.errors[field], JSON.stringify(res.error.errors));
      const list = await server().request('GET', '/v1/customers', { token: p.token });
      assert.deepEqual(list.body.data, []);
    });
  }

  for (const field of ['id', 'key', 'email'] as const) {
    test(`a duplicate ${field} answers 422 on ${field}`, async () => {
      const p = await server().newProgram('referral');
      await create(p, { id: 'one', key: 'one-key', email: 'one@example.com' });
      const body = {
        id: 'two',
        key: 'two-key',
        email: 'two@example.com',
        [field]: field === 'email' ? 'one@example.com' : field === 'id' ? 'one' : 'one-key',
      };
      const res = await create(p, body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors, { [field]: [`The ${field} has already been taken.`] });
    });
  }

  test('null and "" on optional fields mean not given', async () => {
    const p = await server().newProgram('referral');
    const res = await create(p, { id: null, key: '', email: 'n@example.com', referring_customer: null });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.data.id, /^[A-Za-z0-9]{12}$/);
  });

  test('list entries carry the nine spec fields; refer_status filters; archived are hidden', async () => {
    const p = await server().newProgram('referral');
    await create(p, { id: 'r1', email: 'r1@example.com' });
    await create(p, { id: 'f1', email: 'f1@example.com', referring_customer: { id: 'r1' } });
    await create(p, { id: 'x1', email: 'x1@example.com' });
    const all = await server().request('GET', '/v1/customers', { token: p.token });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.data.map((c) => c.id),
      ['x1', 'f1', 'r1'],
    );
    assert.deepEqual(Object.keys(itemAt(all.body.data)).sort(), entryKeys);
    const referred = await server().request('GET', '/v1/customers?refer_status=referred', {
      token: p.token,
    });
    assert.deepEqual(
      referred.body.data.map((c) => c.id),
      ['f1'],
    );
    const non = await server().request('GET', '/v1/customers?refer_status=non_referred&sort=asc', {
      token: p.token,
    });
    assert.deepEqual(
      non.body.data.map((c) => c.id),
      ['r1', 'x1'],
    );
    const wrong = await server().request('GET', '/v1/customers?refer_status=all', { token: p.token });
    assert.equal(wrong.status, 422);
    assert.ok(wrong.error.errors.refer_status);

    assert.equal(
      (await server().request('POST', '/v1/customers/x1/archive', { token: p.token })).status,
      200,
    );
    assert.equal((await get(p, 'x1')).body.data.status, 'archived');
    const after = await server().request('GET', '/v1/customers', { token: p.token });
    assert.deepEqual(
      after.body.data.map((c) => c.id),
      ['f1', 'r1'],
    );
    // An archived customer's link no longer attributes signups.
    const viaArchived = await create(p, { email: 'late@example.com', referring_customer: { id: 'x1' } });
    assert.equal(viaArchived.status, 422);
    assert.equal(
      (await server().request('POST', '/v1/customers/x1/revoke-archive', { token: p.token })).status,
      200,
    );
    assert.equal((await get(p, 'x1')).body.data.status, 'active');
  });

  test('search by id, key and email, from the query or a GET body', async () => {
    const p = await server().newProgram('referral');
    await create(p, { id: 's1', key: 'sk1', email: 's1@example.com' });
    await create(p, { id: 's2', key: 'sk2', email: 's2@example.com' });
    for (const query of ['id=s1', 'key=sk1', 'email=s1%40example.com']) {
      const res = await server().request('GET', `/v1/customers:search?${query}`, { token: p.token });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        res.body.data.map((c) => c.id),
        ['s1'],
        query,
      );
    }
    const older = await server().request('GET', '/v1/customers', {
      token: p.token,
      body: { email: 's2@example.com' },
    });
    assert.deepEqual(
      older.body.data.map((c) => c.id),
      ['s2'],
    );
    const body = await server().request('GET', '/v1/customers:search', {
      token: p.token,
      body: { key: 'sk2' },
    });
    assert.deepEqual(
      body.body.data.map((c) => c.id),
      ['s2'],
    );
  });

  test('update: wrapped, flat, and by body id or key (older form, with update.id)', async () => {
    const p = await server().newProgram('referral', { website: 'https://w.example' });
    await create(p, { id: 'u1', key: 'uk1', email: 'u1@example.com' });
    const wrapped = await server().request('PUT', '/v1/customers/u1', {
      token: p.token,
      body: { update: { name: 'Una', metadata: { date_of_birth: '2000-01-01' } } },
    });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.equal(wrapped.body.data.name, 'Una');
    assert.deepEqual(wrapped.body.data.metadata, { date_of_birth: '2000-01-01' });
    const flat = await server().request('PUT', '/v1/customers/u1', {
      token: p.token,
      body: { surname: 'Smith', key: 'uk2' },
    });
    assert.equal(flat.body.data.surname, 'Smith');
    assert.equal(flat.body.data.key, 'uk2');
    assert.equal(flat.body.data.referral_link, 'https://w.example?ref=uk2');
    const older = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { key: 'uk2', update: { id: 'u1-renamed', email: 'new@example.com' } },
    });
    assert.equal(older.status, 200, older.text);
    assert.equal(older.body.data.id, 'u1-renamed');
    assert.equal(older.body.data.email, 'new@example.com');
    assert.equal((await get(p, 'u1')).status, 404);
    const byId = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { id: 'u1-renamed', update: { name: 'Z' } },
    });
    assert.equal(byId.body.data.name, 'Z');
    const flatByKey = await server().request('PUT', '/v1/customers', {
      token: p.token,
      body: { key: 'uk2', name: 'Flat', surname: 'Form' },
    });
    assert.equal(flatByKey.status, 200, flatByKey.text);
    assert.deepEqual(
      [flatByKey.body.data.id, flatByKey.body.data.name, flatByKey.body.data.surname],
      ['u1-renamed', 'Flat', 'Form'],
    );
  });

  test('update rejects a taken email and a bad date, and a missing customer is 404', async () => {
    const p = await server().newProgram('referral');
    await create(p, { id: 'e1', email: 'e1@example.com' });
    await create(p, { id: 'e2', email: 'e2@example.com' });
    const taken = await server().request('PUT', '/v1/customers/e2', {
      token: p.token,
      body: { update: { email: 'e1@example.com' } },
    });
    assert.equal(taken.status, 422, taken.text);
    assert.ok(taken.error.errors['update.email']);
    const date = await server().request('PUT', '/v1/customers/e2', {
      token: p.token,
      body: { metadata: { date_of_birth: '2001-13-01' } },
    });
    assert.equal(date.status, 422);
    const missing = await server().request('PUT', '/v1/customers/nobody', {
      token: p.token,
      body: { name: 'x' },
    });
    assert.equal(missing.status, 404);
  });

  test("delete is permanent; the referrer's count drops; the referred become non-referred", async () => {
    const p = await server().newProgram('referral');
    await listenToEvents(server(), p);
    await create(p, { id: 'd1', email: 'd1@example.com' });
    await create(p, { id: 'd2', email: 'd2@example.com', referring_customer: { id: 'd1' } });
    await create(p, { id: 'd3', email: 'd3@example.com', referring_customer: { id: 'd2' } });
    const referring = async () =>
      (await server().request('GET', '/v1/program', { token: p.token })).body.data.total_referring_customers;
    assert.equal(await referring(), 2);
    assert.equal((await server().request('DELETE', '/v1/customers/d2', { token: p.token })).status, 200);
    assert.equal((await get(p, 'd2')).status, 404);
    assert.equal((await get(p, 'd1')).body.data.referrals_count, 0);
    // d2 referred d3, and was d1's only referral: neither is a referring customer any more.
    assert.equal(await referring(), 0);
    assert.equal((await get(p, 'd3')).body.data.referring_customer, null);
    assert.equal((await server().request('DELETE', '/v1/customers/d2', { token: p.token })).status, 404);
    const events = await recordedEvents(server(), p);
    assert.ok(events.some((e) => e.event === 'customer.deleted'));
    assert.equal(events.filter((e) => e.event === 'customer.created').length, 3);
  });

  test('DELETE /v1/customers names the customer in the body; POST /v1/customer takes the nested form', async () => {
    const p = await server().newProgram('referral');
    const nested = await server().request('POST', '/v1/customer', {
      token: p.token,
      body: { customer: { id: 'n1', key: 'nk1', email: 'n1@example.com' } },
    });
    assert.equal(nested.status, 201, nested.text);
    assert.equal(nested.body.data.key, 'nk1');
    await create(p, { id: 'n2', email: 'n2@example.com' });
    for (const body of [{ key: 'nk1' }, { email: 'n2@example.com' }]) {
      const res = await server().request('DELETE', '/v1/customers', { token: p.token, body });
      assert.deepEqual(res.body, { status: 1 }, JSON.stringify(body));
    }
    assert.equal((await get(p, 'n1')).status, 404);
    assert.equal((await get(p, 'n2')).status, 404);
    const missing = await server().request('DELETE', '/v1/customers', {
      token: p.token,
      body: { key: 'nk1' },
    });
    assert.equal(missing.status, 404);
  });

  test("another program's customer is 404", async () => {
    const p = await server().newProgram('referral');
    const other = await server().newProgram('referral');
    await create(p, { id: 'mine', email: 'mine@example.com' });
    assert.equal((await get(other, 'mine')).status, 404);
    assert.equal((await get(p, 'unknown-id')).status, 404);
  });

  test('program overview counts customers, referred and referring ones', async () => {
    const p = await server().newProgram('referral');
    await create(p, { id: 'o1', email: 'o1@example.com' });
    await create(p, { id: 'o2', email: 'o2@example.com', referring_customer: { id: 'o1' } });
    await create(p, { id: 'o3', email: 'o3@example.com', referring_customer: { id: 'o1' } });
    const data = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(data.total_customers, 3);
    assert.equal(data.total_referred_customers, 2);
    assert.equal(data.total_referring_customers, 1);
  });

  test(':invite queues an e-mail with the personalization', async () => {
    const p = await server().newProgram('referral', { name: 'Friends Club' });
    const res = await server().request('POST', '/v1/customers:invite', {
      token: p.token,
      body: {
        email: 'inv@example.com',
        name: 'Ivy',
        personalization: { message: 'Hello {{name}}, code {{code}}', code: 'X1' },
      },
    });
    assert.deepEqual(res.body, { status: 1 });
    const mail = await server()
      .deps.database.db.selectFrom('email_outbox')
      .selectAll()
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(mail.recipient, 'inv@example.com');
    assert.equal(mail.subject, 'You are invited to Friends Club');
    assert.match(mail.text_body, /Hello Ivy, code X1/);
    const bad = await server().request('POST', '/v1/customers:invite', {
      token: p.token,
      body: { name: 'x' },
    });
    assert.equal(bad.status, 422);
    assert.ok(bad.error.errors.email);
  });
});
