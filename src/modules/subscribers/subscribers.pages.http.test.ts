import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeEachDatabase,
  ManualClock,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { PORTAL_CACHE_MS } from './subscribers.pages.service.ts';

async function subscribe(server: TestServer, p: TestProgram, body: Record<string, unknown>) {
  const reply = await server.request('POST', '/v1/subscribers', { token: p.token, body });
  assert.equal(reply.status, 201, reply.text);
  return reply.body.data;
}

const pathOf = (url: string) => new URL(url).pathname;

/** The share page's form as a browser sends it: its CSRF cookie back, its fields urlencoded. */
async function openForm(server: TestServer, sharePath: string) {
  const page = await server.request('GET', sharePath, { headers: { accept: 'text/html' } });
  assert.equal(page.status, 200, page.text);
  const cookie = itemAt((page.headers.get('set-cookie') ?? '').split(';'));
  assert.match(cookie, /^vouch_csrf=/);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(token, 'the form carries a CSRF token');
  const post = (fields: Record<string, string>, options: { cookie?: string } = {}) =>
    server.request('POST', sharePath, {
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        cookie: options.cookie ?? cookie,
      },
      body: new URLSearchParams({ _csrf: token, ...fields }).toString(),
    });
  return { page, post };
}

async function subscriberCount(server: TestServer, p: TestProgram) {
  const list = await server.request('GET', '/v1/subscribers?limit=250', { token: p.token });
  return list.body.data.length;
}

/** The app's clock: the portal's reuse window passes by moving it, not by sleeping. */
const clock = new ManualClock();

describeEachDatabase(
  'share page and subscriber portal',
  (server) => {
    test('the share page is accessible HTML with a strict CSP, a CSRF token and a honeypot', async () => {
      const p = await server().newProgram('newsletter', { name: 'Morning <Brief>' });
      const sharer = await subscribe(server(), p, { email: 'ann@example.com', name: 'Ann Smith' });
      const { page } = await openForm(server(), pathOf(sharer.share_link));
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      const csp = page.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
      assert.match(page.text, /^<!doctype html><html lang="en">/);
      assert.equal(page.text.match(/<h1[ >]/g)?.length, 1);
      assert.match(page.text, /Morning &lt;Brief>/);
      assert.doesNotMatch(page.text, /Morning <Brief>/);
      assert.match(page.text, /Ann invited you/);
      assert.match(page.text, /<label for="field-email">/);
      assert.match(page.text, /name="website"/);
      assert.doesNotMatch(page.text, /<script>/, 'no inline script');
      // The JSON API pays nothing for the pages: no cookie, no CSRF.
      const api = await server().request('GET', '/v1/subscribers', { token: p.token });
      assert.equal(api.headers.get('set-cookie'), null);
      assert.equal(api.headers.get('content-type'), 'application/json');
    });

    test('signing up creates a subscriber referred by the sharer, with a welcome e-mail; twice → one subscriber', async () => {
      const p = await server().newProgram('newsletter', { name: 'Weekly' });
      const sharer = await subscribe(server(), p, { email: 'ann@example.com', name: 'Ann' });
      const { post } = await openForm(server(), pathOf(sharer.share_link));
      const fields = { name: 'Bob', email: 'Bob@Example.com', consent: 'yes' };
      const thanks = await post(fields);
      assert.equal(thanks.status, 200, thanks.text);
      assert.match(thanks.text, /You are subscribed, Bob!/);
      const bob = (await server().request('GET', '/v1/subscribers/bob@example.com', { token: p.token })).body
        .data;
      assert.equal(bob.is_referred, true);
      assert.equal(bob.tos, true);
      assert.equal(bob.marketing_consent, true);
      assert.ok(thanks.text.includes(bob.share_link), 'the thank-you page shows the new share link');
      assert.ok(!thanks.text.includes(bob.portal_link), 'the portal secret goes by e-mail only');
      const welcome = await server()
        .deps.database.db.selectFrom('email_outbox')
        .select(['text_body'])
        .where('program_id', '=', p.id)
        .where('recipient', '=', 'Bob@Example.com')
        .execute();
      assert.equal(welcome.length, 1);
      assert.ok(itemAt(welcome).text_body.includes(bob.portal_link));
      const sharerNow = (await server().request('GET', `/v1/subscribers/${sharer.id}`, { token: p.token }))
        .body.data;
      assert.equal(sharerNow.referrals_count, 1);

      for (const again of [fields, { ...fields, email: 'BOB@example.com', name: 'Robert' }]) {
        const twice = await post(again);
        assert.equal(twice.status, 422);
        assert.equal(twice.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.match(twice.text, /already subscribed/);
      }
      assert.equal(await subscriberCount(server(), p), 2);
    });

    test('the same form posted twice at once stores one subscriber; the other post says so', async () => {
      const p = await server().newProgram('newsletter');
      const sharer = await subscribe(server(), p, { email: 'ann@example.com' });
      const { post } = await openForm(server(), pathOf(sharer.share_link));
      const fields = { name: 'Cy', email: 'cy@example.com', consent: 'yes' };
      const replies = await Promise.all([post(fields), post(fields), post(fields)]);
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, 422, 422]);
      for (const reply of replies.filter((r) => r.status === 422))
        assert.match(reply.text, /already subscribed/);
      assert.equal(await subscriberCount(server(), p), 2);
      const ann = (await server().request('GET', `/v1/subscribers/${sharer.id}`, { token: p.token })).body
        .data;
      assert.equal(ann.referrals_count, 1);
    });

    test('bad forms: invalid e-mail, no consent, no CSRF token, a filled honeypot', async () => {
      const p = await server().newProgram('newsletter');
      const sharer = await subscribe(server(), p, { email: 'ann@example.com' });
      const { post } = await openForm(server(), pathOf(sharer.share_link));
      const invalid = await post({ email: 'not-an-email', consent: 'yes' });
      assert.equal(invalid.status, 422);
      assert.match(invalid.text, /Enter a valid e-mail address/);
      assert.match(invalid.text, /aria-invalid="true"/);
      assert.match(invalid.text, /value="not-an-email"/);
      const noConsent = await post({ email: 'c@example.com' });
      assert.equal(noConsent.status, 422);
      assert.match(noConsent.text, /Tick the box/);
      const forged = await post({ email: 'd@example.com', consent: 'yes' }, { cookie: 'vouch_csrf=forged' });
      assert.equal(forged.status, 403);
      assert.match(forged.text, /This form has expired/);
      const huge = await post({ email: 'e@example.com', consent: 'yes', name: 'x'.repeat(20_000) });
      assert.equal(huge.status, 400);
      assert.match(huge.text, /The form could not be read/);
      const bot = await post({ email: 'bot@example.com', consent: 'yes', website: 'http://spam.example' });
      assert.equal(bot.status, 200);
      assert.match(bot.text, /You are subscribed!/);
      assert.doesNotMatch(bot.text, /share-link/);
      assert.equal(await subscriberCount(server(), p), 1, 'nothing stored from a bad form');
    });

    test('unknown program, unknown code, wrong secret and other paths answer the 404 page', async () => {
      const p = await server().newProgram('newsletter');
      const q = await server().newProgram('newsletter');
      const affiliate = await server().newProgram('affiliate');
      const s = await subscribe(server(), p, { email: 'ann@example.com' });
      const [, , program, code, secret] = pathOf(s.portal_link).split('/');
      assert.ok(secret, 'the portal link ends with its secret');
      const paths = [
        `/share/${program}/nope`,
        `/share/${q.publicId}/${code}`,
        `/share/${affiliate.publicId}/${code}`,
        `/share/${p.id}/${code}`,
        `/portal/${program}/${code}/${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`,
        `/portal/${program}/${code}/short`,
        `/portal/${q.publicId}/${code}/${secret}`,
        `/portal/${program}/${code}`,
        '/share/nothing',
      ];
      for (const path of paths) {
        const reply = await server().request('GET', path, { headers: { accept: 'text/html' } });
        assert.equal(reply.status, 404, path);
        assert.equal(reply.headers.get('content-type'), 'text/html; charset=utf-8', path);
        assert.match(reply.text, /<h1>Page not found<\/h1>/, path);
      }
      const right = await server().request('GET', pathOf(s.portal_link));
      assert.equal(right.status, 200);
    });

    test('the portal shows the share link, the count, progress, unlocked rewards and the leaderboard', async () => {
      const p = await server().newProgram('newsletter', { name: 'Weekly' });
      await server().request('POST', '/v1/rewards', {
        token: p.token,
        body: {
          name: 'Sticker',
          subscribers_count: 1,
          fulfillment_type: 'generic_coupon',
          fulfillment_value: 'STICK-1',
        },
      });
      await server().request('POST', '/v1/rewards', {
        token: p.token,
        body: { name: 'Mug', subscribers_count: 3 },
      });
      const ann = await subscribe(server(), p, { email: 'ann@example.com', name: 'Ann Smith' });
      const evil = await subscribe(server(), p, {
        email: 'x@example.com',
        name: '<script>alert(1)</script> Evil',
      });
      await subscribe(server(), p, { email: 'b@example.com', referral: { id: ann.id } });
      await subscribe(server(), p, { email: 'c@example.com', referral: { id: evil.id } });
      const portal = await server().request('GET', pathOf(ann.portal_link));
      assert.equal(portal.status, 200, portal.text);
      assert.equal(portal.headers.get('cache-control'), 'no-store');
      assert.equal(portal.text.match(/<h1[ >]/g)?.length, 1);
      assert.ok(portal.text.includes(`value="${ann.share_link}"`));
      assert.match(portal.text, /<p class="stat">1<\/p>/);
      assert.match(portal.text, /2 more referrals to unlock <strong>Mug<\/strong>/);
      assert.match(portal.text, /<progress id="progress" max="3" value="1">/);
      assert.match(portal.text, /STICK-1/);
      assert.match(portal.text, /Top referrers/);
      assert.match(portal.text, /Ann \(you\)/);
      assert.match(portal.text, /&lt;script>alert\(1\)&lt;\/script>/);
      assert.doesNotMatch(portal.text, /<script>alert/);
      assert.doesNotMatch(portal.text, /Smith/, 'first names only');

      const off = await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { leaderboard_enabled: false } },
      });
      assert.equal(off.status, 200, off.text);
      const without = await server().request('GET', pathOf(ann.portal_link));
      assert.doesNotMatch(without.text, /Top referrers/);
    });

    test("the portal reads the subscriber fresh; the program's leaderboard and milestones within a second", async () => {
      const p = await server().newProgram('newsletter');
      await server().request('POST', '/v1/rewards', {
        token: p.token,
        body: { name: 'Pin', subscribers_count: 5 },
      });
      const ann = await subscribe(server(), p, { email: 'ann@example.com', name: 'Ann' });
      await subscribe(server(), p, { email: 'f1@example.com', referral: { id: ann.id } });
      const first = await server().request('GET', pathOf(ann.portal_link));
      assert.match(first.text, /Ann \(you\) — 1 referral</);
      assert.match(first.text, /4 more referrals to unlock <strong>Pin<\/strong>/);

      await subscribe(server(), p, { email: 'f2@example.com', referral: { id: ann.id } });
      await server().request('POST', '/v1/rewards', {
        token: p.token,
        body: { name: 'Cap', subscribers_count: 3 },
      });
      const next = await server().request('GET', pathOf(ann.portal_link));
      assert.match(next.text, /<p class="stat">2<\/p>/, 'the count is never cached');
      // Reused for at most PORTAL_CACHE_MS (1 s): later, both lists show the changes.
      clock.advance(PORTAL_CACHE_MS);
      const later = await server().request('GET', pathOf(ann.portal_link));
      assert.match(later.text, /Ann \(you\) — 2 referrals</);
      assert.match(later.text, /1 more referral to unlock <strong>Cap<\/strong>/);
    });
  },
  { clock },
);

describeEachDatabase(
  'page rate limit',
  (server) => {
    test('page requests are limited per client address with the 429 page; the API is not', async () => {
      const p = await server().newProgram('newsletter');
      const s = await subscribe(server(), p, { email: 'ann@example.com' });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await server().request('GET', pathOf(s.share_link))).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const limited = await server().request('GET', pathOf(s.portal_link));
      assert.equal(limited.status, 200, 'each page scope counts on its own');
      const last = await server().request('GET', pathOf(s.share_link));
      assert.equal(last.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(last.text, /Too many requests/);
      assert.equal((await server().request('GET', '/v1/subscribers', { token: p.token })).status, 200);
    });
  },
  { env: { PAGES_RATE_LIMIT_PER_MINUTE: '3' } },
);
