import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';

async function subscribe(server: TestServer, p: TestProgram<'newsletter'>, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/subscribers', { token: p.token, body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.data;
}

describeEachDatabase('subscribers API', (server) => {
  test('POST creates a subscriber with real share and portal links; GET by id and by e-mail', async () => {
    const p = await server().newProgram('newsletter');
    await listenToEvents(server(), p);
    const created = await server().request('POST', '/v1/subscribers', {
      token: p.token,
      body: { email: 'Ada@Example.com', name: 'Ada Lovelace', tos: true, marketing_consent: false },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('content-type'), 'application/json');
    const data = created.body.data;
    assert.match(data.id ?? '', /^[A-Za-z0-9]{12}$/);
    assert.equal(data.email, 'Ada@Example.com');
    assert.equal(data.status, 'Active');
    assert.equal(data.approved, true);
    assert.equal(data.is_referred, false);
    assert.equal(data.tos, true);
    assert.equal(data.marketing_consent, false);
    assert.equal(data.referrals_count, 0);
    assert.deepEqual(data.reward, []);
    assert.equal(data.deleted_at, null);
    assert.match(data.share_link, new RegExp(`^${server().url}/share/${p.publicId}/[A-Za-z0-9]{12}$`));
    assert.match(
      data.portal_link,
      new RegExp(`^${server().url}/portal/${p.publicId}/[A-Za-z0-9]{12}/[A-Za-z0-9]{32}$`),
    );

    const byId = await server().request('GET', `/v1/subscribers/${data.id}`, { token: p.token });
    assert.deepEqual(byId.body, { data, status: 1 });
    const byEmail = await server().request('GET', '/v1/subscribers/ada@example.COM', { token: p.token });
    assert.deepEqual(byEmail.body, { data, status: 1 });
    const events = await recordedEvents(server(), p);
    assert.deepEqual(
      events.map((e) => e.event),
      ['subscriber.created'],
    );
    assert.equal(itemAt(events).payload.email, 'Ada@Example.com');
  });

  test('a given id is kept; duplicate e-mail (any case) or id → 422; the same request again replays', async () => {
    const p = await server().newProgram('newsletter');
    const first = await subscribe(server(), p, { email: 'grace@example.com', id: 'esp-1' });
    assert.equal(first.id, 'esp-1');
    const replay = await server().request('POST', '/v1/subscribers', {
      token: p.token,
      body: { email: 'grace@example.com', id: 'esp-1' },
    });
    assert.equal(replay.status, 201);
    assert.deepEqual(replay.body.data, first);
    const sameEmail = await server().request('POST', '/v1/subscribers', {
      token: p.token,
      body: { email: 'GRACE@example.com', name: 'Other' },
    });
    assert.equal(sameEmail.status, 422);
    assert.deepEqual(sameEmail.error.errors, { email: ['The email has already been taken.'] });
    const sameId = await server().request('POST', '/v1/subscribers', {
      token: p.token,
      body: { email: 'other@example.com', id: 'esp-1' },
    });
    assert.equal(sameId.status, 422);
    assert.deepEqual(sameId.error.errors, { id: ['The id has already been taken.'] });
    const list = await server().request('GET', '/v1/subscribers', { token: p.token });
    assert.equal(list.body.data.length, 1);
  });

  test('concurrent creates of one e-mail (in any case) store one subscriber', async () => {
    const p = await server().newProgram('newsletter');
    const root = await subscribe(server(), p, { email: 'root@example.com' });
    const replies = await Promise.all(
      ['dup@example.com', 'DUP@example.com', 'Dup@Example.com', 'dup@EXAMPLE.com'].map((email, i) =>
        server().request('POST', '/v1/subscribers', {
          token: p.token,
          body: { email, name: `Name ${i}`, referral: { id: root.id } },
        }),
      ),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [201, 422, 422, 422]);
    for (const reply of replies.filter((r) => r.status === 422))
      assert.deepEqual(reply.error.errors, { email: ['The email has already been taken.'] });
    const list = await server().request('GET', '/v1/subscribers', { token: p.token });
    assert.equal(list.body.data.length, 2);
    const counted = (await server().request('GET', `/v1/subscribers/${root.id}`, { token: p.token })).body
      .data;
    assert.equal(counted.referrals_count, 1);
  });

  test('bad input: missing or invalid e-mail, status outside the three, unknown or self referral → 422', async () => {
    const p = await server().newProgram('newsletter');
    await subscribe(server(), p, { email: 'ref@example.com', id: 'r1' });
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'x@example.com', status: 'Active' }, 'status'],
      [{ email: 'x@example.com', status: 'deleted' }, 'status'],
      [{ email: 'x@example.com', referral: { email: 'nobody@example.com' } }, 'referral'],
      [{ email: 'x@example.com', referral: { id: 'nope' } }, 'referral'],
      [{ email: 'x@example.com', referral: { email: 'X@example.com' } }, 'referral'],
      [{ email: 'x@example.com', name: 'n'.repeat(256) }, 'name'],
      [{ email: 'x@example.com', approved: 'maybe' }, 'approved'],
    ];
    for (const [body, field] of cases) {
      const reply = await server().request('POST', '/v1/subscribers', { token: p.token, body });
      assert.equal(reply.status, 422, `${JSON.stringify(body)}: ${reply.text}`);
      assert.ok(reply.error.errors[field], `${JSON.stringify(body)} names ${field}: ${reply.text}`);
    }
    const list = await server().request('GET', '/v1/subscribers', { token: p.token });
    assert.equal(list.body.data.length, 1, 'no half-written subscriber');
  });

  test('referrals_count counts active, approved referred subscribers and follows every status move', async () => {
    const p = await server().newProgram('newsletter');
    await listenToEvents(server(), p);
    const referrer = await subscribe(server(), p, { email: 'r@example.com' });
    const count = async () =>
      (await server().request('GET', `/v1/subscribers/${referrer.id}`, { token: p.token })).body.data
        .referrals_count;
    const a = await subscribe(server(), p, { email: 'a@example.com', referral: { email: 'R@example.com' } });
    assert.equal(a.is_referred, true);
    await subscribe(server(), p, { email: 'b@example.com', referral: { id: referrer.id } });
    await subscribe(server(), p, {
      email: 'c@example.com',
      referral: { id: referrer.id },
      status: 'suspended',
    });
    await subscribe(server(), p, { email: 'd@example.com', referral: { id: referrer.id }, approved: false });
    assert.equal(await count(), 2);

    const put = <const P extends string>(path: P, body: unknown) =>
      server().request('PUT', path, { token: p.token, body });
    let reply = await put(`/v1/subscribers/${a.id}`, { update: { status: 'rejected' } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.data.status, 'Rejected');
    assert.equal(await count(), 1);
    reply = await put(`/v1/subscribers/${a.id}`, { status: 'suspended' });
    assert.equal(reply.body.data.status, 'Suspended');
    assert.equal(await count(), 1);
    reply = await put('/v1/subscribers', { email: 'a@example.com', status: 'active' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await count(), 2);
    reply = await put('/v1/subscribers', { email: 'd@example.com', update: { approved: true } });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(await count(), 3);
    reply = await put('/v1/subscribers', { id: a.id, update: { approved: false } });
    assert.equal(await count(), 2);

    const deleted = await server().request('DELETE', '/v1/subscribers', {
      token: p.token,
      body: { email: 'b@example.com' },
    });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { status: 1 });
    assert.equal(await count(), 1);
    const gone = await server().request('GET', '/v1/subscribers/b@example.com', { token: p.token });
    assert.equal(gone.status, 404);
    const unnamed = await server().request('DELETE', '/v1/subscribers', { token: p.token, body: {} });
    assert.equal(unnamed.status, 422);
    assert.deepEqual(unnamed.error.errors, { id: ['The id field is required.'] });
    const unknown = await server().request('DELETE', '/v1/subscribers', {
      token: p.token,
      body: { id: 'nobody' },
    });
    assert.equal(unknown.status, 404);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.equal(events.filter((e) => e === 'subscriber.deleted').length, 1);
  });

  test('update: flat and wrapped changes, e-mail uniqueness on change, unknown subscriber 404', async () => {
    const p = await server().newProgram('newsletter');
    await listenToEvents(server(), p);
    const s = await subscribe(server(), p, { email: 's@example.com', name: 'Sam' });
    await subscribe(server(), p, { email: 't@example.com' });
    const put = <const P extends string>(path: P, body: unknown) =>
      server().request('PUT', path, { token: p.token, body });
    let reply = await put(`/v1/subscribers/${s.id}`, {
      name: 'Samuel',
      tos: 'true',
      marketing_consent: true,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.data.name, 'Samuel');
    assert.equal(reply.body.data.tos, true);
    reply = await put('/v1/subscribers/s@example.com', { update: { email: 'T@example.com' } });
    assert.equal(reply.status, 422);
    assert.deepEqual(reply.error.errors, { 'update.email': ['The update.email has already been taken.'] });
    reply = await put(`/v1/subscribers/${s.id}`, { email: 'new@example.com', id: 'esp-9' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.data.id, 'esp-9');
    assert.equal(reply.body.data.email, 'new@example.com');
    reply = await put(`/v1/subscribers/${s.id}`, { name: 'x' });
    assert.equal(reply.status, 404);
    reply = await put('/v1/subscribers', { name: 'nobody named' });
    assert.equal(reply.status, 422);
    reply = await put('/v1/subscribers/esp-9', { status: 'gone' });
    assert.equal(reply.status, 422);
    assert.ok(reply.error.errors.status);
    const events = (await recordedEvents(server(), p)).map((e) => e.event);
    assert.deepEqual(events.filter((e) => e === 'subscriber.updated').length, 2);
  });

  test('list: limit 10–250 (default 10), refer_status filters, anything else 404; search by id or e-mail', async () => {
    const p = await server().newProgram('newsletter');
    const root = await subscribe(server(), p, { email: 'root@example.com' });
    for (let i = 0; i < 11; i++)
      await subscribe(server(), p, { email: `f${i}@example.com`, referral: { id: root.id } });
    const get = <const P extends string>(path: P) => server().request('GET', path, { token: p.token });
    const first = await get('/v1/subscribers');
    assert.equal(first.status, 200);
    assert.equal(first.body.meta.per_page, 10);
    assert.equal(first.body.data.length, 10);
    assert.equal(first.body.data[0]?.email, 'f10@example.com');
    assert.ok(first.body.links.next);
    assert.equal((await get('/v1/subscribers?limit=9')).status, 422);
    assert.equal((await get('/v1/subscribers?limit=251')).status, 422);
    const referred = await get('/v1/subscribers?refer_status=referred&limit=50');
    assert.equal(referred.body.data.length, 11);
    const notReferred = await get('/v1/subscribers?refer_status=non_referred');
    assert.deepEqual(
      notReferred.body.data.map((s: { email: string }) => s.email),
      ['root@example.com'],
    );
    const asc = await get('/v1/subscribers?sort=asc&limit=10');
    assert.equal(asc.body.data[0]?.email, 'root@example.com');
    const invalid = await get('/v1/subscribers?refer_status=everyone');
    assert.equal(invalid.status, 404);
    assert.equal(invalid.body.status, 0);
    const byEmail = await get('/v1/subscribers:search?email=F3@EXAMPLE.com');
    assert.deepEqual(
      byEmail.body.data.map((s: { email: string }) => s.email),
      ['f3@example.com'],
    );
    const byId = await get(`/v1/subscribers:search?id=${root.id}`);
    assert.equal(byId.body.data.length, 1);
    assert.equal(byId.body.data[0]?.referrals_count, 11);
  });

  test("another program's subscriber is not found, by id, e-mail, search or as a referral", async () => {
    const p = await server().newProgram('newsletter');
    const q = await server().newProgram('newsletter');
    const s = await subscribe(server(), p, { email: 'mine@example.com' });
    for (const path of [`/v1/subscribers/${s.id}`, '/v1/subscribers/mine@example.com']) {
      assert.equal((await server().request('GET', path, { token: q.token })).status, 404);
      assert.equal(
        (await server().request('PUT', path, { token: q.token, body: { name: 'x' } })).status,
        404,
      );
      assert.equal((await server().request('DELETE', path, { token: q.token })).status, 404);
    }
    const search = await server().request('GET', '/v1/subscribers:search?email=mine@example.com', {
      token: q.token,
    });
    assert.deepEqual(search.body.data, []);
    const referred = await server().request('POST', '/v1/subscribers', {
      token: q.token,
      body: { email: 'friend@example.com', referral: { id: s.id } },
    });
    assert.equal(referred.status, 422);
    // The same e-mail in another program is another subscriber.
    await subscribe(server(), q, { email: 'mine@example.com' });
  });

  test('GET /v1/program shows subscriber figures from counters', async () => {
    const p = await server().newProgram('newsletter');
    const root = await subscribe(server(), p, { email: 'root@example.com' });
    await subscribe(server(), p, { email: 'a@example.com', referral: { id: root.id } });
    await subscribe(server(), p, { email: 'b@example.com', referral: { id: root.id } });
    await subscribe(server(), p, { email: 'c@example.com' });
    const overview = await server().request('GET', '/v1/program', { token: p.token });
    assert.equal(overview.status, 200, overview.text);
    const data = overview.body.data;
    assert.equal(data.program.type, 'Newsletter');
    assert.equal(data.total_customers, 4);
    assert.equal(data.total_referred_customers, 2);
    assert.equal(data.total_referring_customers, 1);
    assert.equal(data.total_customers_growth, 100);
    await server().request('DELETE', '/v1/subscribers/a@example.com', { token: p.token });
    const after = (await server().request('GET', '/v1/program', { token: p.token })).body.data;
    assert.equal(after.total_customers, 3);
    assert.equal(after.total_referred_customers, 1);
  });
});

describeEachDatabase(
  'subscriber links with PUBLIC_URL',
  (server) => {
    test('share and portal links are built on PUBLIC_URL, and they work', async () => {
      const p = await server().newProgram('newsletter');
      const s = await subscribe(server(), p, { email: 'ann@example.com' });
      assert.match(s.share_link, new RegExp(`^https://refer\\.example\\.com/share/${p.publicId}/`));
      assert.match(s.portal_link, new RegExp(`^https://refer\\.example\\.com/portal/${p.publicId}/`));
      const page = await server().request('GET', new URL(s.portal_link).pathname);
      assert.equal(page.status, 200);
      assert.ok(page.text.includes(`value="${s.share_link}"`));
    });
  },
  { env: { PUBLIC_URL: 'https://refer.example.com' } },
);
