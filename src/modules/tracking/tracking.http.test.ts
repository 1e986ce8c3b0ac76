import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  startServer,
  type TestProgram,
  type TestServer,
  testDialects,
} from '../../../test/harness.ts';
import { readDailyCounter } from '../counters/counters.repository.ts';
import { clickTrackerOf, LINK_CACHE_MS } from './tracking.service.ts';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131 Safari/537.36';
const browser = (n = 0) => ({ 'user-agent': `${BROWSER} visitor-${n}` });

/** The clock of the suites that move past the lifetime of link lookups instead of sleeping. */
const linkClock = new ManualClock();

/** Moves the app's clock past a link lookup's lifetime: the next one is made afresh. */
const afterLinkCache = () => linkClock.advance(LINK_CACHE_MS + 1);

/** Writes the clicks the app still holds (as its timer would within CLICK_FLUSH_MS). */
const flushClicks = (server: TestServer) => clickTrackerOf(server.deps).flush();

/** `read()` once every click answered so far is written. */
async function afterFlush<T>(server: TestServer, read: () => Promise<T>): Promise<T> {
  await flushClicks(server);
  return read();
}

let serial = 0;
/** An affiliate program with a partner whose link key is unique in the run (or `key`). */
async function partnerWithLink(
  server: TestServer,
  website = 'https://shop.example.com',
  key = `pk${++serial}-${Math.random().toString(36).slice(2, 8)}`,
) {
  const p = await server.newProgram('affiliate', { website });
  const partner = await server.request('POST', '/v1/partners', {
    token: p.token,
    body: { email: 'pk@example.com', key },
  });
  assert.equal(partner.status, 201, partner.text);
  return { p, partnerId: partner.body.data.id, key };
}

const partnerClicks = async (server: TestServer, p: TestProgram, id: string) => {
  const res = await server.request('GET', `/v1/partners/${id}`, { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.referrals.clicks;
};

const overviewClicks = async (server: TestServer, p: TestProgram) => {
  const res = await server.request('GET', '/v1/program', { token: p.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data.total_clicks;
};

const setSettings = async (server: TestServer, p: TestProgram, settings: Record<string, unknown>) => {
  const res = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: settings },
  });
  assert.equal(res.status, 200, res.text);
};

describeEachDatabase(
  'click tracking: GET /r/{key}',
  (server) => {
    test('a partner link redirects to the website with ?aff=, sets the cookie and counts the click once', async () => {
      const { p, partnerId, key } = await partnerWithLink(server());
      const res = await server().request('GET', `/r/${key}`, { headers: browser(1) });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), `https://shop.example.com/?aff=${key}`);
      const cookie = res.headers.get('set-cookie') ?? '';
      assert.match(cookie, new RegExp(`^vouch_partner=${key};`));
      assert.match(cookie, /Max-Age=5184000/);
      assert.match(cookie, /SameSite=Lax/);
      assert.doesNotMatch(cookie, /Secure/);
      // The same visitor again within 24 hours: followed, not counted again.
      const again = await server().request('GET', `/r/${key}`, { headers: browser(1) });
      assert.equal(again.status, 302);
      assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 1);
      await server().request('GET', `/r/${key}`, { headers: browser(2) });
      assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 2);
      assert.equal(await overviewClicks(server(), p), 2);
      const link = await server()
        .deps.database.db.selectFrom('referral_links')
        .select('id')
        .where('program_id', '=', p.id)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      const daily = await readDailyCounter(
        server().deps.database.db,
        p.id,
        { kind: 'link', id: Number(link.id) },
        'clicks',
        '2000-01-01',
      );
      assert.deepEqual(
        daily.map((d) => d.value),
        [2n],
      );
    });

    test('the cookie lives the program cookie_lifetime days; a stored redirect URL wins over the website', async () => {
      const { p, key } = await partnerWithLink(server());
      await setSettings(server(), p, { cookie_lifetime: 7 });
      await server()
        .deps.database.db.updateTable('referral_links')
        .set({
          direct_tracking: true,
          direct_tracking_redirect: true,
          direct_tracking_redirect_url: 'https://landing.example.org/promo?x=1',
        })
        .where('program_id', '=', p.id)
        .where('key', '=', key)
        .execute();
      const res = await server().request('GET', `/r/${key}?to=https://evil.example`, { headers: browser() });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), 'https://landing.example.org/promo?x=1');
      assert.match(res.headers.get('set-cookie') ?? '', /Max-Age=604800/);
      await setSettings(server(), p, { cookie_lifetime: 9_999_999 });
      await afterLinkCache();
      const longest = await server().request('GET', `/r/${key}`, { headers: browser() });
      assert.equal(longest.status, 302);
      assert.match(longest.headers.get('set-cookie') ?? '', /Max-Age=863999913600/);
    });

    test('a refer-a-friend link sets vouch_referral with ?ref=; stats count clicks per customer and per link', async () => {
      const p = await server().newProgram('referral', { website: 'https://friends.example.com/join' });
      const created = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { id: 'amy', key: 'amy-key', email: 'amy@example.com' },
      });
      assert.equal(created.status, 201, created.text);
      const res = await server().request('GET', '/r/amy-key', { headers: browser(3) });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), 'https://friends.example.com/join?ref=amy-key');
      assert.match(res.headers.get('set-cookie') ?? '', /^vouch_referral=amy-key;/);
      const stats = async () => {
        const s = await server().request('GET', '/v1/customers/amy/stats', { token: p.token });
        assert.equal(s.status, 200, s.text);
        return [s.body.data.referrals.clicks, s.body.data.ref_links.map((l) => l.clicks)];
      };
      assert.deepEqual(await afterFlush(server(), stats), [1, [1]]);
      const archived = await server().request('POST', '/v1/customers/amy/archive', { token: p.token });
      assert.equal(archived.status, 200, archived.text);
      await afterLinkCache();
      const gone = await server().request('GET', '/r/amy-key', { headers: browser(33) });
      assert.equal(gone.status, 302);
      assert.equal(gone.headers.get('location'), 'https://friends.example.com/join');
      assert.equal(gone.headers.get('set-cookie'), null);
      const deleted = await server().request('DELETE', '/v1/customers/amy', { token: p.token });
      assert.equal(deleted.status, 200, deleted.text);
      await afterLinkCache();
      const unknown = await server().request('GET', '/r/amy-key', { headers: browser(33) });
      assert.equal(unknown.status, 404);
    });

    test('first_click keeps a stored cookie; last_click replaces it', async () => {
      const { p, key } = await partnerWithLink(server());
      const withCookie = { ...browser(4), cookie: 'vouch_partner=earlier' };
      const last = await server().request('GET', `/r/${key}`, { headers: withCookie });
      assert.match(last.headers.get('set-cookie') ?? '', new RegExp(`^vouch_partner=${key};`));
      await setSettings(server(), p, { attribution: 'first_click' });
      await afterLinkCache();
      const first = await server().request('GET', `/r/${key}`, { headers: withCookie });
      assert.equal(first.status, 302);
      assert.equal(first.headers.get('set-cookie'), null);
      const fresh = await server().request('GET', `/r/${key}`, { headers: browser(4) });
      assert.match(fresh.headers.get('set-cookie') ?? '', new RegExp(`^vouch_partner=${key};`));
      const read = await server().request('GET', '/v1/program', { token: p.token });
      assert.equal(read.body.data.program.program_settings.attribution, 'first_click');
      const bad = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { attribution: 'any_click' } },
      });
      assert.equal(bad.status, 422);
      assert.ok(bad.error.errors['program_settings.attribution'], bad.text);
    });

    test('bots, HEAD and prefetch requests are redirected but not counted', async () => {
      const { p, partnerId, key } = await partnerWithLink(server());
      const bot = await server().request('GET', `/r/${key}`, {
        headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' },
      });
      assert.equal(bot.status, 302);
      assert.equal(
        (await server().request('GET', `/r/${key}`, { headers: { 'user-agent': '' } })).status,
        302,
      );
      assert.equal((await server().request('HEAD', `/r/${key}`, { headers: browser(5) })).status, 302);
      const prefetch = await server().request('GET', `/r/${key}`, {
        headers: { ...browser(6), 'sec-purpose': 'prefetch' },
      });
      assert.equal(prefetch.status, 302);
      await flushClicks(server());
      assert.equal(await partnerClicks(server(), p, partnerId), 0);
      assert.equal(await overviewClicks(server(), p), 0);
    });

    test('unknown, archived and bad keys: the website when the program is known, else the 404 page; nothing counted', async () => {
      const { p, partnerId, key } = await partnerWithLink(server());
      const unknown = await server().request('GET', '/r/no-such-key-anywhere', { headers: browser() });
      assert.equal(unknown.status, 404);
      assert.match(unknown.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(unknown.text, /Link not found/);
      const inProgram = await server().request('GET', `/r/${p.publicId}/no-such-key`, { headers: browser() });
      assert.equal(inProgram.status, 302);
      assert.equal(inProgram.headers.get('location'), 'https://shop.example.com/');
      assert.equal(inProgram.headers.get('set-cookie'), null);

      const bad = [
        `/r/${'k'.repeat(10_000)}`,
        `/r/${p.publicId}/${'k'.repeat(10_000)}`,
        '/r/..%2F..%2Fetc%2Fpasswd',
        '/r/../../etc/passwd',
        `/r/${key}/../../admin`,
        '/r/%E2%9C%93%F0%9F%98%80',
        `/r/%00${key}`,
        '/r/%ZZ',
        `/r/${p.publicId}/%E2%9C%93`,
      ];
      for (const path of bad) {
        const res = await server().request('GET', path, { headers: browser(7) });
        // A path that climbs out of /r/ (`/r/k/../../admin`) reaches that page, the owner console's
        // entry (303 to its sign-in), never a link.
        const console = res.status === 303 && (res.headers.get('location') ?? '').startsWith('/admin/');
        assert.ok(
          res.status === 302 || console || (res.status >= 400 && res.status < 500),
          `${path}: ${res.status}`,
        );
        if (res.status === 302) assert.equal(res.headers.get('location'), 'https://shop.example.com/', path);
        assert.equal(res.headers.get('set-cookie'), null, path);
      }

      const archived = await server().request('POST', `/v1/partners/${partnerId}/archive`, {
        token: p.token,
      });
      assert.equal(archived.status, 200, archived.text);
      const gone = await server().request('GET', `/r/${key}`, { headers: browser(8) });
      assert.equal(gone.status, 302);
      assert.equal(gone.headers.get('location'), 'https://shop.example.com/');
      assert.equal(gone.headers.get('set-cookie'), null);
      await flushClicks(server());
      await server().request('POST', `/v1/partners/${partnerId}/revoke-archive`, { token: p.token });
      assert.equal(await partnerClicks(server(), p, partnerId), 0);
      assert.equal(await overviewClicks(server(), p), 0);
    });

    test('a key two programs share is followed only with its program; never to another program', async () => {
      const a = await partnerWithLink(server(), 'https://a.example.com', 'shared');
      const b = await partnerWithLink(server(), 'https://b.example.com', 'shared');
      const shared = await server().request('GET', '/r/shared', { headers: browser(9) });
      assert.equal(shared.status, 404);
      const inB = await server().request('GET', `/r/${b.p.publicId}/shared`, { headers: browser(9) });
      assert.equal(inB.status, 302);
      assert.equal(inB.headers.get('location'), 'https://b.example.com/?aff=shared');
      assert.equal(await afterFlush(server(), () => partnerClicks(server(), b.p, b.partnerId)), 1);
      assert.equal(await partnerClicks(server(), a.p, a.partnerId), 0);
    });

    test("a key of program A asked for in program B goes to B's website; A's link counts nothing", async () => {
      const a = await partnerWithLink(server(), 'https://a.example.com');
      const b = await partnerWithLink(server(), 'https://b.example.com');
      const res = await server().request('GET', `/r/${b.p.publicId}/${a.key}`, { headers: browser(12) });
      assert.equal(res.status, 302);
      assert.equal(res.headers.get('location'), 'https://b.example.com/');
      assert.equal(res.headers.get('set-cookie'), null);
      await flushClicks(server());
      assert.equal(await partnerClicks(server(), a.p, a.partnerId), 0);
      assert.equal(await overviewClicks(server(), b.p), 0);
    });

    test('a program without a website: a link with no stored target and an unknown key give the 404 page', async () => {
      const p = await server().newProgram('affiliate', { website: '' });
      const overview = await server().request('GET', '/v1/program', { token: p.token });
      assert.equal(overview.body.data.program.website, null, overview.text);
      const partner = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'nosite@example.com', key: 'no-site-key' },
      });
      assert.equal(partner.status, 201, partner.text);
      for (const path of [`/r/${p.publicId}/whatever`, `/r/${p.publicId}/no-site-key`, '/r/no-site-key']) {
        const res = await server().request('GET', path, { headers: browser() });
        assert.equal(res.status, 404, path);
        assert.match(res.text, /Link not found/);
      }
    });
  },
  { clock: linkClock },
);

describeEachDatabase('click tracking: from the cookie to the signup, and under concurrency', (server) => {
  const linkFigures = async (p: TestProgram, key: string) => {
    const db = server().deps.database.db;
    const link = await db
      .selectFrom('referral_links')
      .select('id')
      .where('program_id', '=', p.id)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    const rows = await db
      .selectFrom('entity_counters')
      .select(['metric', 'value'])
      .where('program_id', '=', p.id)
      .where('owner_kind', '=', 'link')
      .where('owner_id', '=', Number(link.id))
      .execute();
    // A figure may have several rows (its slots): they add up.
    const figures: Record<string, number> = {};
    for (const r of rows) figures[r.metric] = (figures[r.metric] ?? 0) + Number(r.value);
    return figures;
  };

  test("an affiliate signup with the cookie's key of an additional link is that link's signup", async () => {
    const { p, key } = await partnerWithLink(server());
    const extra = `${key}-extra`;
    const link = await server().request('POST', '/v1/partner_referral_links', {
      token: p.token,
      body: { key: extra, partner: { key } },
    });
    assert.equal(link.status, 201, link.text);
    const res = await server().request('GET', `/r/${extra}`, { headers: browser(60) });
    assert.match(res.headers.get('set-cookie') ?? '', new RegExp(`^vouch_partner=${extra};`));
    const customer = await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { key: `${extra}-buyer`, partner: { key: extra } },
    });
    assert.equal(customer.status, 201, customer.text);
    assert.deepEqual(await afterFlush(server(), () => linkFigures(p, extra)), {
      clicks: 1,
      signups: 1,
    });
    assert.deepEqual(await linkFigures(p, key), {});
  });

  test("a refer-a-friend signup names its referrer by the key of any of the referrer's links", async () => {
    const p = await server().newProgram('referral', { website: 'https://friends.example.com' });
    const call = <const M extends string, const P extends string>(method: M, path: P, body?: unknown) =>
      server().request(method, path, { token: p.token, body });
    assert.equal((await call('POST', '/v1/customers', { id: 'amy', email: 'amy@example.com' })).status, 201);
    const link = await call('POST', '/v1/customer_referral_links', {
      key: 'amy-promo',
      customer: { id: 'amy' },
    });
    assert.equal(link.status, 200, link.text);
    const res = await server().request('GET', '/r/amy-promo', { headers: browser(61) });
    assert.match(res.headers.get('set-cookie') ?? '', /^vouch_referral=amy-promo;/);
    const friend = await call('POST', '/v1/customers', {
      id: 'fred',
      email: 'fred@example.com',
      referring_customer: { key: 'amy-promo' },
    });
    assert.equal(friend.status, 201, friend.text);
    assert.equal(friend.body.data.referring_customer?.id, 'amy');
    const unknown = await call('POST', '/v1/customers', {
      id: 'gus',
      email: 'gus@example.com',
      referring_customer: { key: 'no-such-link' },
    });
    assert.equal(unknown.status, 422, unknown.text);
  });

  test('concurrent clicks: every distinct visitor counts once, one visitor once', async () => {
    const { p, partnerId, key } = await partnerWithLink(server());
    const visitors = Array.from({ length: 40 }, (_, i) => browser(100 + i));
    const results = await Promise.all(
      [...visitors, ...visitors].map((headers) => server().request('GET', `/r/${key}`, { headers })),
    );
    assert.ok(results.every((r) => r.status === 302));
    const same = await Promise.all(
      Array.from({ length: 30 }, () =>
        server().request('POST', '/t/click', { body: { program: p.publicId, key }, headers: browser(999) }),
      ),
    );
    assert.ok(same.every((r) => r.status === 200));
    assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 41);
    await flushClicks(server());
    assert.equal(await partnerClicks(server(), p, partnerId), 41);
    assert.equal(await overviewClicks(server(), p), 41);
  });
});

describeEachDatabase('click tracking: POST /t/click', (server) => {
  const report = (body: unknown, headers: Record<string, string> = browser(20)) =>
    server().request('POST', '/t/click', {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'text/plain', ...headers },
    });

  test('the script reports a click: counted once, the cookie settings answered, CORS allowed', async () => {
    const { p, partnerId, key } = await partnerWithLink(server());
    await setSettings(server(), p, { cookie_lifetime: 30, attribution: 'first_click' });
    const res = await report({ program: p.publicId, key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.body.data.click_id ?? '', /^[A-Za-z0-9_-]{12}$/);
    assert.deepEqual(res.body, {
      data: {
        key,
        click_id: res.body.data.click_id,
        cookie: 'vouch_partner',
        cookie_lifetime: 30,
        attribution: 'first_click',
        parameter: 'aff',
      },
      status: 1,
    });
    const json = await server().request('POST', '/t/click', {
      body: { program: p.publicId, key },
      headers: browser(20),
    });
    assert.equal(json.status, 200, json.text);
    assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 1);
    const preflight = await server().request('OPTIONS', '/t/click', {
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  });

  test('bad reports are refused with the field named and count nothing', async () => {
    const { p, partnerId, key } = await partnerWithLink(server());
    const other = await partnerWithLink(server(), 'https://other.example.com');
    const cases: [unknown, number, string?][] = [
      [{ key }, 422, 'program'],
      [{ program: p.publicId }, 422, 'key'],
      [{ program: p.publicId, key: 'k'.repeat(10_000) }, 422, 'key'],
      [{ program: p.publicId, key: '' }, 422, 'key'],
      [{ program: p.publicId, key: '../../etc/passwd' }, 404],
      [{ program: p.publicId, key: '✓😀' }, 404],
      [{ program: p.publicId, key: 'nope' }, 404],
      [{ program: 'no-such-program', key }, 404],
      [{ program: p.publicId, key: 42 }, 422, 'key'],
      ['{not json', 400],
      ['[1,2]', 422],
    ];
    for (const [body, status, field] of cases) {
      const res = await report(body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`);
      assert.equal(res.body.status, 0);
      if (field) assert.ok(res.error.errors[field], `${field}: ${res.text}`);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    }
    // A key of program A reported for program B: B has no such link.
    const otherLink = await server().request('POST', '/v1/partner_referral_links', {
      token: other.p.token,
      body: { key: 'only-in-other', partner: { key: other.key } },
    });
    assert.equal(otherLink.status, 201, otherLink.text);
    const cross = await report({ program: p.publicId, key: 'only-in-other' });
    assert.equal(cross.status, 404, cross.text);
    await flushClicks(server());
    assert.equal(await partnerClicks(server(), p, partnerId), 0);
    assert.equal(await partnerClicks(server(), other.p, other.partnerId), 0);
  });
});

describeEachDatabase(
  'click tracking behind a proxy, with a small per-address budget',
  (server) => {
    test('a flood from one address is rate-limited without hurting another', async () => {
      const { p, key } = await partnerWithLink(server());
      const from = (address: string) =>
        server().request('POST', '/t/click', {
          body: { program: p.publicId, key },
          headers: { ...browser(30), 'x-forwarded-for': address },
        });
      const flood = [];
      for (let i = 0; i < 8; i++) flood.push((await from('203.0.113.7')).status);
      assert.deepEqual(flood.slice(0, 5), [200, 200, 200, 200, 200]);
      assert.deepEqual(flood.slice(5), [429, 429, 429]);
      const limited = await from('203.0.113.7');
      assert.equal(limited.error.message, 'Too Many Attempts.');
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
      assert.equal((await from('198.51.100.20')).status, 200);
    });

    test('the cookie is Secure when the visitor came over HTTPS', async () => {
      const { p, key } = await partnerWithLink(server());
      const res = await server().request('GET', `/r/${p.publicId}/${key}`, {
        headers: { ...browser(31), 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
      });
      assert.equal(res.status, 302);
      assert.match(res.headers.get('set-cookie') ?? '', /Secure/);
    });
  },
  { env: { TRUST_PROXY: 'on', CLICK_RATE_LIMIT_PER_MINUTE: '5' } },
);

const clock = new ManualClock();
describeEachDatabase(
  'click tracking: once per visitor per link in 24 hours, across the daily salt rotation',
  (server) => {
    test('a repeat 13 hours later (the next day) is not counted; one 25 hours later is', async () => {
      clock.set('2026-03-01T12:00:00.000Z');
      const { p, partnerId, key } = await partnerWithLink(server());
      const click = () => server().request('GET', `/r/${key}`, { headers: browser(40) });
      await click();
      assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 1);
      clock.set('2026-03-02T01:00:00.000Z');
      await click();
      await flushClicks(server());
      assert.equal(await partnerClicks(server(), p, partnerId), 1);
      clock.set('2026-03-02T13:00:00.000Z');
      await click();
      assert.equal(await afterFlush(server(), () => partnerClicks(server(), p, partnerId)), 2);
      const salts = await server().deps.database.db.selectFrom('click_salts').select('day').execute();
      assert.ok(salts.every((s) => s.day >= '2026-03-01'));
      const visitors = await server().deps.database.db.selectFrom('click_visitors').selectAll().execute();
      assert.ok(visitors.every((v) => !v.visitor.includes('127.0.0.1')));
    });
  },
  { clock },
);

for (const dialect of testDialects()) {
  test(`clicks still in the buffer are written when the app closes [${dialect}]`, async () => {
    const server = await startServer({ dialect });
    try {
      const { p, key } = await partnerWithLink(server);
      const res = await server.request('GET', `/r/${key}`, { headers: browser(50) });
      assert.equal(res.status, 302);
      await server.app.close();
      const rows = await server.deps.database.db
        .selectFrom('entity_counters')
        .select(['owner_kind', 'value'])
        .where('program_id', '=', p.id)
        .where('metric', '=', 'clicks')
        .execute();
      assert.deepEqual(rows.map((r) => [r.owner_kind, Number(r.value)]).sort(), [
        ['link', 1],
        ['partner', 1],
      ]);
    } finally {
      await server.close();
    }
  });
}

for (const dialect of testDialects().filter((d) => d === 'postgres')) {
  test(`two instances on one database count a visitor once [${dialect}]`, async () => {
    const first = await startServer({ dialect });
    const second = await startServer({ dialect, database: { url: first.databaseUrl } });
    try {
      const { p, partnerId, key } = await partnerWithLink(first);
      const clicks = [first, second].flatMap((server) => [
        ...Array.from({ length: 10 }, () => server.request('GET', `/r/${key}`, { headers: browser(70) })),
        ...Array.from({ length: 10 }, (_, i) =>
          server.request('GET', `/r/${key}`, { headers: browser(server === first ? 200 + i : 300 + i) }),
        ),
      ]);
      assert.ok((await Promise.all(clicks)).every((r) => r.status === 302));
      await flushClicks(second);
      assert.equal(await afterFlush(first, () => partnerClicks(first, p, partnerId)), 21);
      assert.equal(await partnerClicks(second, p, partnerId), 21);
      const salts = await first.deps.database.db.selectFrom('click_salts').selectAll().execute();
      assert.equal(salts.length, 1);
    } finally {
      await second.app.close();
      await second.deps.database.close();
      await first.close();
    }
  });
}

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

test('with REDIS_URL, instances share one click budget per address', async (t) => {
  const { Redis } = await import('ioredis');
  const probe = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  const reachable = await probe
    .connect()
    .then(() => probe.ping())
    .then((pong) => pong === 'PONG')
    .catch(() => false);
  probe.disconnect();
  if (!reachable) {
    if (process.env.CI) assert.fail(`Redis at ${REDIS_URL} is unreachable`);
    t.skip('Redis unreachable');
    return;
  }
  const env = { REDIS_URL, TRUST_PROXY: 'on', CLICK_RATE_LIMIT_PER_MINUTE: '4' };
  const first = await startServer({ dialect: 'sqlite', env });
  const second = await startServer({ dialect: 'sqlite', env });
  try {
    // An address of its own per run: the budget lives in Redis for a minute.
    const address = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const report = (server: TestServer) =>
      server.request('POST', '/t/click', {
        body: { program: 'none', key: 'none' },
        headers: { ...browser(80), 'x-forwarded-for': address },
      });
    const statuses = [];
    for (const server of [first, second, first, second, first, second])
      statuses.push((await report(server)).status);
    assert.deepEqual(statuses, [404, 404, 404, 404, 429, 429]);
  } finally {
    await second.close();
    await first.close();
  }
});
