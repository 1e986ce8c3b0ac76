import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

describeEachDatabase('partners', (server) => {
  const create = (program: TestProgram<'affiliate'>, body: Record<string, unknown>) =>
    server().request('POST', '/v1/partners', { token: program.token, body });
  const get = (program: TestProgram<'affiliate'>, id: string) =>
    server().request('GET', `/v1/partners/${encodeURIComponent(id)}`, { token: program.token });
  const events = (program: TestProgram<'affiliate'>) => recordedEvents(server(), program);
  const partnerCount = async (program: TestProgram<'affiliate'>) =>
    Number(
      (
        await server()
          .deps.database.db.selectFrom('partners')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('program_id', '=', program.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('create answers 201 with the partner, its default link and tags; the password is never shown', async () => {
    const p = await server().newProgram('affiliate', { website: 'https://acme.example' });
    await listenToEvents(server(), p);
    const res = await create(p, {
      email: 'ann@example.com',
      name: 'Ann',
      surname: 'Lee',
      key: 'ann',
      password: 'Secret123',
      tags: ['vip', 'eu'],
    });
    assert.equal(res.status, 201, res.text);
    const data = res.body.data;
    assert.equal(res.body.status, 1);
    assert.match(data.id, /^[A-Za-z0-9]{12}$/);
    assert.deepEqual(Object.keys(data).sort(), [
      'approved',
      'created_at',
      'custom_fields',
      'email',
      'id',
      'name',
      'referral_link',
      'referral_links',
      'referrals_count',
      'status',
      'surname',
      'tags',
      'tos',
      'updated_at',
    ]);
    assert.deepEqual(
      { ...data, id: undefined, created_at: undefined, updated_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        updated_at: undefined,
        email: 'ann@example.com',
        name: 'Ann',
        surname: 'Lee',
        status: 'active',
        approved: true,
        tos: false,
        referrals_count: 0,
        tags: [{ value: 'vip' }, { value: 'eu' }],
        referral_link: 'https://acme.example?aff=ann',
        referral_links: ['https://acme.example?aff=ann'],
        custom_fields: [],
      },
    );
    assert.match(data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const [event] = await events(p);
    assert.equal(event?.event, 'partner.created');
    assert.equal(event?.payload.id, data.id);
  });

  test('a given id is kept; null and "" optional fields are "not given"', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const res = await create(p, {
      id: 'partner-1',
      email: 'b@example.com',
      key: null,
      name: '',
      password: null,
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.id, 'partner-1');
    assert.equal(res.body.data.name, null);
  });

  test('fetch adds referrals, commissions and custom_field_values; by id or by referral key', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const created = (await create(p, { email: 'c@example.com', key: 'ckey' })).body.data;
    for (const segment of [created.id, 'ckey']) {
      const res = await get(p, segment);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.id, created.id);
      assert.deepEqual(res.body.data.referrals, {
        clicks: 0,
        signups: 0,
        revenue: [],
        sales_count: 0,
        paid_accounts: 0,
      });
      assert.deepEqual(res.body.data.commissions, { paid: 0, pending: [], not_paid: [] });
      assert.deepEqual(res.body.data.custom_field_values, []);
    }
    const one = await server().request('GET', '/v1/partner?email=c@example.com', { token: p.token });
    assert.equal(one.body.data.id, created.id);
    const byKey = await server().request('GET', '/v1/partner', { token: p.token, body: { key: 'ckey' } });
    assert.equal(byKey.body.data.id, created.id);
    assert.equal(
      (await server().request('GET', '/v1/partner?email=none@example.com', { token: p.token })).status,
      404,
    );
  });

  test('list and search entries carry only the nine fields; search by id, email and any link key', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'a@example.com', key: 'akey' })).body.data;
    const b = (await create(p, { email: 'b@example.com', key: 'bkey' })).body.data;
    const list = await server().request('GET', '/v1/partners', { token: p.token });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((x: { id: string }) => x.id),
      [b.id, a.id],
    );
    assert.deepEqual(Object.keys(itemAt(list.body.data)).sort(), [
      'approved',
      'created_at',
      'custom_fields',
      'email',
      'id',
      'name',
      'status',
      'surname',
      'updated_at',
    ]);
    const asc = await server().request('GET', '/v1/partners?sort=asc&limit=1', { token: p.token });
    assert.deepEqual(
      asc.body.data.map((x: { id: string }) => x.id),
      [a.id],
    );
    assert.ok(asc.body.links.next);
    for (const query of [`id=${a.id}`, 'email=a@example.com', 'key=akey']) {
      const res = await server().request('GET', `/v1/partners:search?${query}`, { token: p.token });
      assert.deepEqual(
        res.body.data.map((x: { id: string }) => x.id),
        [a.id],
        query,
      );
    }
    const none = await server().request('GET', '/v1/partners:search?key=nope', { token: p.token });
    assert.deepEqual(none.body.data, []);
  });

  test('update: path form flat or wrapped, body form by id, email or key; tags [] clears, null keeps', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'u@example.com', key: 'ukey', tags: ['x'] })).body.data;
    let res = await server().request('PUT', `/v1/partners/${a.id}`, {
      token: p.token,
      body: { name: 'Flat', tags: null },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Flat');
    assert.deepEqual(res.body.data.tags, [{ value: 'x' }]);
    res = await server().request('PUT', `/v1/partners/${a.id}`, {
      token: p.token,
      body: { update: { surname: 'Wrapped', tags: [] } },
    });
    assert.equal(res.body.data.surname, 'Wrapped');
    assert.deepEqual(res.body.data.tags, []);
    res = await server().request('PUT', '/v1/partners', {
      token: p.token,
      body: { email: 'u@example.com', update: { name: 'ByEmail', key: 'newkey' } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'ByEmail');
    assert.equal(res.body.data.referral_link, 'https://shop.example.com?aff=newkey');
    res = await server().request('PUT', '/v1/partners', {
      token: p.token,
      body: { key: 'newkey', name: 'ByKey' },
    });
    assert.equal(res.body.data.name, 'ByKey');
    res = await server().request('PUT', '/v1/partners', { token: p.token, body: { id: a.id, name: 'ById' } });
    assert.equal(res.body.data.name, 'ById');
    assert.equal((await get(p, 'newkey')).body.data.id, a.id);
    assert.equal((await get(p, 'ukey')).status, 404);
    assert.ok((await events(p)).some((e) => e.event === 'partner.updated' && e.payload.name === 'ById'));
  });

  test('archive hides from lists until revoke-archive restores the previous status', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'ar@example.com' })).body.data;
    assert.deepEqual(
      (await server().request('POST', `/v1/partners/${a.id}/archive`, { token: p.token })).body,
      {
        status: 1,
      },
    );
    assert.equal((await get(p, a.id)).body.data.status, 'archived');
    assert.deepEqual((await server().request('GET', '/v1/partners', { token: p.token })).body.data, []);
    const archived = await server().request('GET', '/v1/partners?status=archived', { token: p.token });
    assert.equal(archived.body.data.length, 1);
    await server().request('POST', `/v1/partners/${a.id}/revoke-archive`, { token: p.token });
    assert.equal((await get(p, a.id)).body.data.status, 'active');
    assert.ok((await events(p)).some((e) => e.event === 'partner.archived'));
  });

  test('approve and reject record their events', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'ap@example.com' })).body.data;
    await server().request('POST', `/v1/partners/${a.id}/reject`, { token: p.token });
    let after = (await get(p, a.id)).body.data;
    assert.equal(after.approved, false);
    assert.equal(after.status, 'pending');
    await server().request('POST', `/v1/partners/${a.id}/approve`, { token: p.token });
    after = (await get(p, a.id)).body.data;
    assert.equal(after.approved, true);
    assert.equal(after.status, 'active');
    const names = (await events(p)).map((e) => e.event);
    assert.deepEqual(names, ['partner.created', 'partner.rejected', 'partner.approved']);
  });

  test('approved=false finds the applicants awaiting approval, approved=true the others', async () => {
    const p = await server().newProgram('affiliate');
    const applicant = (await create(p, { email: 'apply@example.com', approved: false })).body.data;
    const approved = (await create(p, { email: 'in@example.com' })).body.data;
    const listed = async (query: string) =>
      (await server().request('GET', `/v1/partners?${query}`, { token: p.token })).body.data.map((x) => x.id);
    assert.deepEqual(await listed('approved=false'), [applicant.id]);
    assert.deepEqual(await listed('approved=true'), [approved.id]);
    await server().request('POST', `/v1/partners/${applicant.id}/approve`, { token: p.token });
    assert.deepEqual(await listed('approved=false'), []);
    const wrong = await server().request('GET', '/v1/partners?approved=maybe', { token: p.token });
    assert.equal(wrong.status, 422);
    assert.ok(wrong.error.errors.approved, wrong.text);
  });

  test('delete by path id, or by body id, email or key; unknown → 404', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'd1@example.com' })).body.data;
    await create(p, { email: 'd2@example.com' });
    const c = (await create(p, { email: 'd3@example.com', key: 'd3key' })).body.data;
    const d = (await create(p, { email: 'd4@example.com' })).body.data;
    assert.deepEqual((await server().request('DELETE', `/v1/partners/${a.id}`, { token: p.token })).body, {
      status: 1,
    });
    assert.equal((await get(p, a.id)).status, 404);
    await server().request('DELETE', '/v1/partners', { token: p.token, body: { email: 'd2@example.com' } });
    await server().request('DELETE', '/v1/partners', { token: p.token, body: { key: 'd3key' } });
    await server().request('DELETE', `/v1/partners?id=${d.id}`, { token: p.token });
    assert.equal(await partnerCount(p), 0);
    assert.equal((await get(p, c.id)).status, 404);
    const again = await server().request('DELETE', `/v1/partners/${a.id}`, { token: p.token });
    assert.equal(again.status, 404);
    assert.equal(again.body.status, 0);
    assert.equal((await events(p)).filter((e) => e.event === 'partner.deleted').length, 4);
  });

  test(':invite queues an invitation e-mail', async () => {
    const p = await server().newProgram('affiliate', { name: 'Acme' });
    await listenToEvents(server(), p);
    const res = await server().request('POST', '/v1/partners:invite', {
      token: p.token,
      body: { email: 'new@example.com', name: 'Nia' },
    });
    assert.deepEqual(res.body, { status: 1 });
    const mail = await server()
      .deps.database.db.selectFrom('email_outbox')
      .selectAll()
      .where('program_id', '=', p.id)
      .executeTakeFirstOrThrow();
    assert.equal(mail.recipient, 'new@example.com');
    assert.match(mail.text_body, /Nia/);
    assert.match(mail.subject, /Acme/);
    const bad = await server().request('POST', '/v1/partners:invite', {
      token: p.token,
      body: { name: 'x' },
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.error.errors.email, ['The email field is required.']);
  });

  const invalid: [string, Record<string, unknown>, string, string[]][] = [
    ['a missing email', {}, 'email', ['The email field is required.']],
    ['a malformed email', { email: 'nope' }, 'email', ['The email field must be a valid email address.']],
    [
      'a weak password',
      { email: 'w@example.com', password: 'short' },
      'password',
      [
        'The password field must be at least 8 characters.',
        'The password field must contain at least one uppercase and one lowercase letter.',
        'The password field must contain at least one number.',
      ],
    ],
    [
      'an unknown referring partner',
      { email: 'r@example.com', referring_partner: { email: 'ghost@example.com' } },
      'referring_partner',
      ['The selected referring partner is invalid.'],
    ],
  ];
  for (const [name, body, field, expected] of invalid) {
    test(`create rejects ${name} with 422 on ${field}, storing nothing`, async () => {
      const p = await server().newProgram('affiliate');
      await listenToEvents(server(), p);
      const res = await create(p, body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors[field], expected);
      assert.equal(await partnerCount(p), 0);
      assert.deepEqual(await events(p), []);
    });
  }

  test('a duplicate email, id or key answers 422 on that field and stores nothing', async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const a = (await create(p, { email: 'dup@example.com', key: 'dupkey' })).body.data;
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'dup@example.com' }, 'email'],
      [{ email: 'x1@example.com', id: a.id }, 'id'],
      [{ email: 'x2@example.com', key: 'dupkey' }, 'key'],
    ];
    for (const [body, field] of cases) {
      const res = await create(p, body);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(res.error.errors, { [field]: [`The ${field} has already been taken.`] });
    }
    assert.equal(await partnerCount(p), 1);
    const b = (await create(p, { email: 'other@example.com' })).body.data;
    const taken = await server().request('PUT', `/v1/partners/${b.id}`, {
      token: p.token,
      body: { update: { email: 'dup@example.com' } },
    });
    assert.deepEqual(taken.error.errors, { 'update.email': ['The update.email has already been taken.'] });
    const keyTaken = await server().request('PUT', `/v1/partners/${b.id}`, {
      token: p.token,
      body: { key: 'dupkey' },
    });
    assert.deepEqual(keyTaken.error.errors, { key: ['The key has already been taken.'] });
  });

  test("referring_partner is stored; another program's partner is not found", async () => {
    const p = await server().newProgram('affiliate');
    await listenToEvents(server(), p);
    const other = await server().newProgram('affiliate');
    const parent = (await create(p, { email: 'parent@example.com' })).body.data;
    const child = await create(p, { email: 'child@example.com', referring_partner: { id: parent.id } });
    assert.equal(child.status, 201, child.text);
    assert.equal((await get(other, parent.id)).status, 404);
    const foreign = await create(other, { email: 'x@example.com', referring_partner: { id: parent.id } });
    assert.equal(foreign.status, 422);
  });
});
