import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  describeEachDatabase,
  listenToEvents,
  ManualClock,
  recordedEvents,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { locationOf, PageClient, PORTAL_PASSWORD, signUpPartner } from '../../../test/portal-client.ts';
import { lastMailTo, startSmtp } from '../../../test/smtp-sink.ts';
import type { Deps } from '../../context.ts';
import { present } from '../../core/present.ts';

const PASSWORD = PORTAL_PASSWORD;

const partnerCount = async (server: TestServer, p: TestProgram) => {
  const rows = await server.deps.database.db
    .selectFrom('partners')
    .select('id')
    .where('program_id', '=', p.id)
    .execute();
  return rows.length;
};

/** Signs a new partner up through the form; answers the client, signed in. */
const signUp = async (server: () => TestServer, p: TestProgram, email: string, name = 'Jane') =>
  (await signUpPartner(server, `/p/${p.publicId}`, email, { name })).client;

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

const mailTo = (deps: Deps, to: string) => lastMailTo(deps, smtp, to);

const linkIn = (mail: string, kind: 'link' | 'reset') => {
  const url = new RegExp(`https?://[^\\s"<]+/${kind}/[A-Za-z0-9_-]{43}`).exec(mail)?.[0];
  assert.ok(url, `a ${kind} URL in the mail`);
  return new URL(url).pathname;
};

/** The app's clock: waits (a throttled sign-in) pass by moving it, not by sleeping. */
const clock = new ManualClock();

describeEachDatabase(
  'partner portal',
  (server) => {
    test('program page, sign-up, dashboard: a partner exactly as POST /v1/partners makes one', async () => {
      const p = await server().newProgram('affiliate', { name: 'Acme <Tools>' });
      await listenToEvents(server(), p);
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: {
          program_settings: {
            commission: { type: 'percent', value: 20, duration: 'months', duration_value: 12 },
            commission_hold_days: 30,
          },
        },
      });
      const visitor = new PageClient(server);
      const page = await visitor.get(`/p/${p.publicId}`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(page.text, /20 % of every payment for 12 months, paid after a 30-day hold\./);
      assert.match(page.text, /Acme &lt;Tools>/);
      assert.equal(page.text.match(/<h1[ >]/g)?.length, 1);

      const client = await signUp(server, p, 'Jane@Example.com');
      const cookie = client.cookie('vouch_portal');
      assert.ok(cookie && cookie.length >= 43, 'a session cookie');
      const dashboard = await client.get(`/p/${p.publicId}/dashboard`);
      assert.equal(dashboard.status, 200, dashboard.text);
      assert.match(dashboard.text, /Welcome, Jane/);
      const list = await server().request('GET', '/v1/partners?limit=10', { token: p.token });
      const partner = (
        await server().request('GET', `/v1/partners/${itemAt(list.body.data).id}`, { token: p.token })
      ).body.data;
      assert.equal(partner.email, 'Jane@Example.com');
      assert.equal(partner.tos, true);
      assert.ok(dashboard.text.includes(`value="${partner.referral_link}"`), 'the link with its copy field');
      const events = (await recordedEvents(server(), p)).map((e) => e.event);
      assert.deepEqual(events, ['partner.created']);

      const overview = await server().request('GET', '/v1/program', { token: p.token });
      assert.equal(
        overview.body.data.overview_program_current_settings.partner_portal_url,
        `${server().url}/p/${p.publicId}`,
      );
    });

    test('the session cookie is HttpOnly, SameSite=Lax, scoped to the program; a sale shows on the dashboard', async () => {
      const p = await server().newProgram('affiliate');
      const client = await signUp(server, p, 'sam@example.com', 'Sam');
      const partnerId = itemAt(
        (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
      ).id;
      const again = new PageClient(server);
      await again.get(`/p/${p.publicId}/sign-in`);
      const signedIn = await again.post(`/p/${p.publicId}/sign-in`, {
        email: 'sam@example.com',
        password: PASSWORD,
      });
      assert.equal(signedIn.status, 303, signedIn.text);
      const setCookie = signedIn.headers.get('set-cookie') ?? '';
      assert.match(
        setCookie,
        new RegExp(`vouch_portal=[^;]+; Max-Age=\\d+; Path=/p/${p.publicId}; HttpOnly; SameSite=Lax`),
      );
      assert.doesNotMatch(setCookie, /Secure/, 'plain HTTP here');

      const customer = await server().request('POST', '/v1/customers', {
        token: p.token,
        body: { key: 'buyer-1', name: 'John Smith', email: 'john@example.com', partner: { id: partnerId } },
      });
      assert.equal(customer.status, 201, customer.text);
      const sale = await server().request('POST', '/v1/transactions', {
        token: p.token,
        body: {
          key: 'sale-1',
          amount: 150,
          amount_units: 'USD',
          action: 'sale',
          customer: { key: 'buyer-1' },
        },
      });
      assert.equal(sale.status, 200, sale.text);
      const dashboard = await client.get(`/p/${p.publicId}/dashboard`);
      assert.equal(dashboard.status, 200);
      assert.match(dashboard.text, /<dt>Signups<\/dt><dd>1<\/dd>/);
      assert.match(dashboard.text, /<dt>Paying customers<\/dt><dd>1<\/dd>/);
      assert.match(dashboard.text, /\$150\.00/);
      assert.match(dashboard.text, /\$30\.00/, 'the 20 % commission');
      assert.match(dashboard.text, /<td>J\. S\.<\/td>/, 'the customer masked');
      assert.doesNotMatch(dashboard.text, /John|Smith|john@example/);
    });

    test('bad sign-up input: weak password, taken e-mail, script in a name, 1 MB field, forged CSRF; nothing written', async () => {
      const p = await server().newProgram('affiliate');
      await signUp(server, p, 'taken@example.com');
      const client = new PageClient(server);
      const path = `/p/${p.publicId}/sign-up`;
      await client.get(path);
      const fields = { name: 'Ann', surname: '', email: 'ann@example.com', password: PASSWORD, terms: 'yes' };

      const weak = await client.post(path, { ...fields, password: 'password' });
      assert.equal(weak.status, 422);
      assert.match(weak.text, /must contain at least one uppercase and one lowercase letter/);
      assert.match(weak.text, /must contain at least one number/);
      assert.doesNotMatch(weak.text, /value="password"/, 'a password is never sent back');

      const taken = await client.post(path, { ...fields, email: 'TAKEN@example.com' });
      assert.equal(taken.status, 422);
      assert.match(taken.text, /already has a partner account/);

      const invalid = await client.post(path, { ...fields, email: 'not-an-email', terms: '' });
      assert.equal(invalid.status, 422);
      assert.match(invalid.text, /Enter a valid e-mail address/);
      assert.match(invalid.text, /Accept the terms/);

      const huge = await client.post(path, { ...fields, name: 'x'.repeat(1024 * 1024) });
      assert.equal(huge.status, 400);
      assert.match(huge.text, /The form could not be read/);

      const forged = await client.post(path, { ...fields, _csrf: 'forged' });
      assert.equal(forged.status, 403);
      assert.match(forged.text, /This form has expired/);
      const noToken = new PageClient(server);
      const missing = await noToken.post(path, fields);
      assert.equal(missing.status, 403);
      assert.equal(await partnerCount(server(), p), 1, 'nothing written');

      const evil = await signUp(server, p, 'evil@example.com', '<script>alert(1)</script>');
      const dashboard = await evil.get(`/p/${p.publicId}/dashboard`);
      assert.match(dashboard.text, /Welcome, &lt;script>alert\(1\)&lt;\/script>/);
      assert.doesNotMatch(dashboard.text, /<script>alert/);
      assert.doesNotMatch(dashboard.text, /<script>(?!<\/script>)/, 'no inline script');
    });

    test('sign-in: wrong password and unknown e-mail answer alike; failures make the next try wait', async () => {
      const p = await server().newProgram('affiliate');
      await signUp(server, p, 'pat@example.com', 'Pat');
      const client = new PageClient(server);
      const path = `/p/${p.publicId}/sign-in`;
      await client.get(path);
      const wrong = await client.post(path, { email: 'pat@example.com', password: 'Wrong1234' });
      const unknown = await client.post(path, { email: 'nobody@example.com', password: PASSWORD });
      for (const reply of [wrong, unknown]) {
        assert.equal(reply.status, 401);
        assert.match(reply.text, /The e-mail address or the password is not right\./);
        assert.doesNotMatch(reply.headers.get('set-cookie') ?? '', /vouch_portal/);
      }
      for (let i = 0; i < 4; i++)
        await client.post(path, { email: 'pat@example.com', password: 'Wrong1234' });
      const waiting = await client.post(path, { email: 'pat@example.com', password: PASSWORD });
      assert.equal(waiting.status, 429, 'even the right password waits after 5 failures');
      assert.match(waiting.text, /Too many failed sign-ins\. Please try again in 1 second/);
      clock.advance(1_000);
      const right = await client.post(path, { email: 'pat@example.com', password: PASSWORD });
      assert.equal(right.status, 303, right.text);
    });

    test('another program’s partner cannot sign in, and a session of program A is refused by program B', async () => {
      const a = await server().newProgram('affiliate');
      const b = await server().newProgram('affiliate');
      const client = await signUp(server, a, 'amy@example.com', 'Amy');
      const other = new PageClient(server);
      const refused = await other.submit(`/p/${b.publicId}/sign-in`, {
        email: 'amy@example.com',
        password: PASSWORD,
      });
      assert.equal(refused.status, 401);
      // The cookie is scoped to program A's path; sent to B anyway, it names no session there.
      const token = present(client.cookie('vouch_portal'), 'the portal session cookie');
      const thief = new PageClient(server);
      thief.setCookie('vouch_portal', token, `/p/${b.publicId}`);
      const dashboard = await thief.get(`/p/${b.publicId}/dashboard`);
      assert.equal(dashboard.status, 303);
      assert.equal(locationOf(dashboard), `/p/${b.publicId}/sign-in`);
      assert.equal((await client.get(`/p/${a.publicId}/dashboard`)).status, 200);
      const newsletter = await server().newProgram('newsletter');
      assert.equal((await other.get(`/p/${newsletter.publicId}/sign-in`)).status, 404);
    });

    test('a session ends when the partner is archived, rejected or its password changes; sign-out ends it', async () => {
      const p = await server().newProgram('affiliate');
      const first = await signUp(server, p, 'ari@example.com', 'Ari');
      const id = itemAt(
        (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
      ).id;
      const dashboard = `/p/${p.publicId}/dashboard`;
      assert.equal((await first.get(dashboard)).status, 200);
      await server().request('POST', `/v1/partners/${id}/archive`, { token: p.token });
      assert.equal((await first.get(dashboard)).status, 303, 'archived: signed out');
      await server().request('POST', `/v1/partners/${id}/revoke-archive`, { token: p.token });
      assert.equal((await first.get(dashboard)).status, 303, 'the session stays ended');

      const second = new PageClient(server);
      assert.equal(
        (await second.submit(`/p/${p.publicId}/sign-in`, { email: 'ari@example.com', password: PASSWORD }))
          .status,
        303,
      );
      await server().request('POST', `/v1/partners/${id}/reject`, { token: p.token });
      assert.equal((await second.get(dashboard)).status, 303, 'rejected: signed out');
      await server().request('POST', `/v1/partners/${id}/approve`, { token: p.token });

      const third = new PageClient(server);
      await third.submit(`/p/${p.publicId}/sign-in`, { email: 'ari@example.com', password: PASSWORD });
      const fourth = new PageClient(server);
      await fourth.submit(`/p/${p.publicId}/sign-in`, { email: 'ari@example.com', password: PASSWORD });
      const changed = await third.submit(
        `/p/${p.publicId}/settings/password`,
        { current: PASSWORD, password: 'Another456' },
        `/p/${p.publicId}/settings`,
      );
      assert.equal(changed.status, 200, changed.text);
      assert.match(changed.text, /Your new password is saved/);
      assert.equal((await third.get(dashboard)).status, 200, 'the browser that changed it goes on');
      assert.equal((await fourth.get(dashboard)).status, 303, 'every other session ended');
      const viaApi = await server().request('PUT', `/v1/partners/${id}`, {
        token: p.token,
        body: { password: 'ByApi7890' },
      });
      assert.equal(viaApi.status, 200, viaApi.text);
      assert.equal((await third.get(dashboard)).status, 303, 'a password set through the API ends it too');

      const fifth = new PageClient(server);
      await fifth.submit(`/p/${p.publicId}/sign-in`, { email: 'ari@example.com', password: 'ByApi7890' });
      assert.equal((await fifth.get(dashboard)).status, 200);
      const out = await fifth.post(`/p/${p.publicId}/sign-out`);
      assert.equal(out.status, 200);
      assert.match(out.text, /You are signed out/);
      assert.equal(fifth.cookie('vouch_portal'), undefined);
    });

    test('a program that approves partners by hand shows pending review until approved', async () => {
      const p = await server().newProgram('affiliate');
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { partner_auto_approve: false } },
      });
      const client = await signUp(server, p, 'pen@example.com', 'Pen');
      const pending = await client.get(`/p/${p.publicId}/dashboard`);
      assert.match(pending.text, /pending review/);
      assert.doesNotMatch(pending.text, /Your referral links/);
      const id = itemAt(
        (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
      ).id;
      await server().request('POST', `/v1/partners/${id}/approve`, { token: p.token });
      const approved = await client.get(`/p/${p.publicId}/dashboard`);
      assert.match(approved.text, /Your referral links/);
    });

    test('sign-in link by e-mail: single use, 15 minutes; off unless passwordless sign-in is enabled', async () => {
      const p = await server().newProgram('affiliate', { name: 'Linky' });
      await signUp(server, p, 'lee@example.com', 'Lee');
      const client = new PageClient(server);
      assert.equal((await client.get(`/p/${p.publicId}/sign-in-link`)).status, 404);
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { portal_settings: { passwordless_login_enabled: true } },
      });
      const sent = await client.submit(`/p/${p.publicId}/sign-in-link`, { email: 'LEE@example.com' });
      assert.match(sent.text, /we sent it a link/);
      const unknown = await client.submit(`/p/${p.publicId}/sign-in-link`, { email: 'nobody@example.com' });
      assert.equal(unknown.text.replace(/value="[^"]+"/g, ''), sent.text.replace(/value="[^"]+"/g, ''));
      const link = linkIn(await mailTo(server().deps, 'lee@example.com'), 'link');

      const opened = await client.get(link);
      assert.equal(opened.status, 200);
      assert.equal(client.cookie('vouch_portal'), undefined, 'opening the link alone signs nobody in');
      const used = await client.post(link);
      assert.equal(used.status, 303, used.text);
      assert.equal((await client.get(`/p/${p.publicId}/dashboard`)).status, 200);
      const reused = await new PageClient(server).get(link);
      assert.equal(reused.status, 410);
      assert.match(reused.text, /expired or was already used/);

      await client.submit(`/p/${p.publicId}/sign-in-link`, { email: 'lee@example.com' });
      const late = linkIn(await mailTo(server().deps, 'lee@example.com'), 'link');
      await server()
        .deps.database.db.updateTable('portal_tokens')
        .set({ expires_at: '2000-01-01T00:00:00.000000Z' })
        .where('program_id', '=', p.id)
        .where('used_at', 'is', null)
        .execute();
      assert.equal((await new PageClient(server).get(late)).status, 410);
    });

    test('password reset by e-mail: a weak password keeps the link, a good one signs in once', async () => {
      const p = await server().newProgram('affiliate');
      const old = await signUp(server, p, 'rae@example.com', 'Rae');
      const client = new PageClient(server);
      await client.submit(`/p/${p.publicId}/forgot`, { email: 'rae@example.com' });
      const link = linkIn(await mailTo(server().deps, 'rae@example.com'), 'reset');
      await client.get(link);
      const weak = await client.post(link, { password: 'short' });
      assert.equal(weak.status, 422);
      assert.match(weak.text, /at least 8 characters/);
      const done = await client.post(link, { password: 'NewPass789' });
      assert.equal(done.status, 303, done.text);
      assert.equal((await client.get(`/p/${p.publicId}/dashboard`)).status, 200);
      assert.equal((await old.get(`/p/${p.publicId}/dashboard`)).status, 303, 'older sessions ended');
      assert.equal((await client.get(link)).status, 410, 'used once');
      const signIn = new PageClient(server);
      const reply = await signIn.submit(`/p/${p.publicId}/sign-in`, {
        email: 'rae@example.com',
        password: 'NewPass789',
      });
      assert.equal(reply.status, 303);
    });

    test('lead form: only with leads_page_enabled; bad answers write nothing; a lead is submitted as this partner', async () => {
      const p = await server().newProgram('affiliate');
      const client = await signUp(server, p, 'lea@example.com', 'Lea');
      const path = `/p/${p.publicId}/leads`;
      assert.equal((await client.get(path)).status, 404);
      const form = await server().request('PUT', '/v1/leads/details', {
        token: p.token,
        body: {
          leads_custom_form_fields: [
            { type: 'input', title: 'Company', required: true },
            { type: 'checkbox', title: 'Interests', options: ['seo', 'ads', 'email'] },
            { type: 'countries', title: 'Country' },
            { type: 'text', title: 'Intro', text: '<p>Tell us <b>more</b></p>' },
          ],
        },
      });
      assert.equal(form.status, 200, form.text);
      const [company, interests, country] = form.body.data.leads_custom_form_fields.map(
        (f: { id: number }) => f.id,
      );
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { portal_settings: { leads_page_enabled: true } },
      });
      const page = await client.get(path);
      assert.equal(page.status, 200, page.text);
      assert.match(page.text, /<label for="cfield-\d+">Company<\/label>/);
      assert.match(page.text, /Tell us more/);
      assert.doesNotMatch(page.text, /<b>more/);
      assert.match(page.text, /<legend>Interests \(optional\)<\/legend>/);

      const bad = await client.post(path, { name: '', email: 'nope', [`cfield-${country}`]: 'XX' });
      assert.equal(bad.status, 422);
      assert.match(bad.text, /Enter the name/);
      assert.match(bad.text, /Enter a valid e-mail address/);
      assert.match(bad.text, /Answer this question\./, 'the required company');
      assert.match(bad.text, /Check this answer\./, 'the unknown country');
      const none = await server().request('GET', '/v1/leads', { token: p.token });
      assert.equal(none.body.data.length, 0, 'nothing written');

      const body = new URLSearchParams({ _csrf: client.csrf, name: 'Big <Co>', email: 'buyer@big.example' });
      body.append(`cfield-${company}`, 'Big Co');
      body.append(`cfield-${interests}`, 'seo');
      body.append(`cfield-${interests}`, 'email');
      body.append(`cfield-${country}`, 'DE');
      const sent = await server().request('POST', path, {
        headers: {
          accept: 'text/html',
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `vouch_csrf=${client.cookie('vouch_csrf')}; vouch_portal=${client.cookie('vouch_portal')}`,
        },
        body: body.toString(),
      });
      assert.equal(sent.status, 200, sent.text);
      assert.match(sent.text, /your lead is submitted/);
      assert.match(sent.text, /Big &lt;Co>/);
      const leads = (await server().request('GET', '/v1/leads', { token: p.token })).body.data;
      assert.equal(leads.length, 1);
      assert.equal(leads[0]?.submitter.email, 'lea@example.com');
      assert.deepEqual(
        itemAt(leads)
          .submission_form.slice(2, 5)
          .map((e) => e.answer),
        ['Big Co', 'seo, email', 'DE'],
      );
    });

    test('at once: one e-mailed link used five times signs in once; one e-mail signed up three times makes one partner', async () => {
      const p = await server().newProgram('affiliate');
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { portal_settings: { passwordless_login_enabled: true } },
      });
      await signUp(server, p, 'con@example.com', 'Con');
      const asker = new PageClient(server);
      await asker.submit(`/p/${p.publicId}/sign-in-link`, { email: 'con@example.com' });
      const link = linkIn(await mailTo(server().deps, 'con@example.com'), 'link');
      const clients = Array.from({ length: 5 }, () => new PageClient(server));
      for (const client of clients) await client.get(link);
      const replies = await Promise.all(clients.map((client) => client.post(link)));
      assert.deepEqual(replies.map((r) => r.status).sort(), [303, 410, 410, 410, 410]);

      const signers = Array.from({ length: 3 }, () => new PageClient(server));
      for (const client of signers) await client.get(`/p/${p.publicId}/sign-up`);
      const fields = {
        name: 'Twin',
        surname: '',
        email: 'twin@example.com',
        password: PASSWORD,
        terms: 'yes',
      };
      const signed = await Promise.all(
        signers.map((client) => client.post(`/p/${p.publicId}/sign-up`, fields)),
      );
      assert.deepEqual(signed.map((r) => r.status).sort(), [303, 422, 422]);
      for (const reply of signed.filter((r) => r.status === 422))
        assert.match(reply.text, /already has a partner account/);
      assert.equal(await partnerCount(server(), p), 2);
    });

    test('links with a key of the partner’s choice, when the program allows them', async () => {
      const p = await server().newProgram('affiliate');
      const client = await signUp(server, p, 'kim@example.com', 'Kim');
      const other = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'other@example.com', key: 'taken-key' },
      });
      assert.equal(other.status, 201, other.text);
      await client.get(`/p/${p.publicId}/dashboard`);
      assert.equal(
        (await client.post(`/p/${p.publicId}/links`, { key: 'kim-blog' })).status,
        404,
        'off by default',
      );
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { program_settings: { partner_custom_links_enabled: true } },
      });
      const dashboard = await client.get(`/p/${p.publicId}/dashboard`);
      assert.match(dashboard.text, /Add a link with your own key/);
      const taken = await client.post(`/p/${p.publicId}/links`, { key: 'taken-key' });
      assert.equal(taken.status, 422);
      assert.match(taken.text, /This key is taken/);
      const bad = await client.post(`/p/${p.publicId}/links`, { key: 'my blog/x' });
      assert.equal(bad.status, 422);
      assert.match(bad.text, /without spaces/);
      const made = await client.post(`/p/${p.publicId}/links`, { key: 'kim-blog' });
      assert.equal(made.status, 303, made.text);
      const after = await client.get(`/p/${p.publicId}/dashboard`);
      assert.match(after.text, new RegExp(`value="[^"]+/r/${p.publicId}/kim-blog"`), 'its tracking link');
      const link = await server().request('GET', '/v1/partner_referral_links/kim-blog', { token: p.token });
      assert.equal(link.status, 200, link.text);
      assert.equal(link.body.data.key, 'kim-blog');
    });

    test('payout method and details on the settings page: the API’s rules, clear errors, CSRF, never in lists', async () => {
      const p = await server().newProgram('affiliate');
      await listenToEvents(server(), p);
      const client = await signUp(server, p, 'payee@example.com');
      const base = `/p/${p.publicId}`;
      const settings = await client.get(`${base}/settings`);
      assert.equal(settings.status, 200);
      assert.doesNotMatch(settings.text, /not built yet/);
      assert.match(settings.text, /<select id="field-payout_method" name="payout_method"/);
      // The e-mail field is labelled for the chosen service.
      for (const [method, label] of [
        ['paypal', 'PayPal e-mail address'],
        ['wise', 'Wise e-mail address'],
      ] as const) {
        const chosen = await client.get(`${base}/settings?payout_method=${method}`);
        assert.match(chosen.text, new RegExp(`<label[^>]*for="field-payout_email"[^>]*>${label}<`));
        assert.doesNotMatch(chosen.text, /PayPal or Wise/);
      }
      const partnerId = itemAt(
        (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
      ).id;
      const stored = async () =>
        (await server().request('GET', `/v1/partners/${partnerId}`, { token: p.token })).body.data;

      const cases: [Record<string, string>, string, RegExp][] = [
        [{}, 'payout_method', /Choose how you want to be paid/],
        [{ payout_method: 'cheque' }, 'payout_method', /Choose how you want to be paid/],
        [{ payout_method: 'paypal' }, 'payout_email', /Enter your e-mail address/],
        [
          { payout_method: 'paypal', payout_email: 'not-an-email' },
          'payout_email',
          /e-mail address is not valid/,
        ],
        [
          { payout_method: 'bank_transfer', payout_account_holder: 'Jane Doe' },
          'payout_iban',
          /Enter your IBAN or your account number/,
        ],
        [
          { payout_method: 'bank_transfer', payout_account_holder: 'Jane', payout_iban: 'XX' },
          'payout_iban',
          /IBAN is not valid/,
        ],
        [
          { payout_method: 'manual', payout_note: 'x'.repeat(1001) },
          'payout_note',
          /at most 1000 characters/,
        ],
      ];
      for (const [fields, field, message] of cases) {
        const reply = await client.post(`${base}/settings/payout`, fields);
        assert.equal(
          reply.status,
          422,
          `${JSON.stringify(fields).slice(0, 80)}: ${reply.text.slice(0, 200)}`,
        );
        assert.match(reply.text, message);
        assert.match(reply.text, new RegExp(`id="field-${field}"[^>]*aria-invalid="true"`));
        assert.match(reply.text, /role="alert"/);
      }
      assert.equal((await stored()).payout_method, null, 'nothing written');

      const forged = await client.post(`${base}/settings/payout`, {
        _csrf: 'forged',
        payout_method: 'paypal',
        payout_email: 'pay@example.com',
      });
      assert.equal(forged.status, 403);
      assert.equal((await stored()).payout_method, null);

      const saved = await client.post(`${base}/settings/payout`, {
        payout_method: 'bank_transfer',
        payout_account_holder: 'Jane <b>Doe</b>',
        payout_iban: 'de89 3704 0044 0532 0130 00',
        payout_swift_bic: 'cobadeffxxx',
        payout_email: 'left@over.example',
      });
      assert.equal(saved.status, 200, saved.text);
      assert.match(saved.text, /Your payout details are saved/);
      assert.match(saved.text, /value="DE89 3704 0044 0532 0130 00"/);
      assert.match(saved.text, /Jane &lt;b>Doe&lt;\/b>/, 'escaped');
      const partner = await stored();
      assert.equal(partner.payout_method, 'bank_transfer');
      assert.deepEqual(partner.payout_details, {
        account_holder: 'Jane <b>Doe</b>',
        iban: 'DE89 3704 0044 0532 0130 00',
        swift_bic: 'COBADEFFXXX',
      });
      const events = (await recordedEvents(server(), p)).map((e) => e.event);
      assert.equal(events.at(-1), 'partner.updated', 'as PUT /v1/partners records it');

      // Never in list pages: the dashboard, nor the API's partner list.
      const dashboard = await client.get(`${base}/dashboard`);
      assert.doesNotMatch(dashboard.text, /DE89|COBADEFF|Jane &lt;b>/);
      const list = await server().request('GET', '/v1/partners', { token: p.token });
      assert.doesNotMatch(list.text, /DE89|payout_details/);

      // A later mistake keeps what is stored and shows what was sent.
      const wrong = await client.post(`${base}/settings/payout`, { payout_method: 'paypal' });
      assert.equal(wrong.status, 422);
      assert.match(wrong.text, /<option value="paypal" selected>/);
      assert.equal((await stored()).payout_method, 'bank_transfer');
    });

    test('the dashboard lists the partner’s latest payouts (its own amount), through the payouts service', async () => {
      const p = await server().newProgram('affiliate');
      const client = await signUp(server, p, 'paid@example.com');
      const other = await server().request('POST', '/v1/partners', {
        token: p.token,
        body: { email: 'other@example.com', name: 'Other' },
      });
      assert.equal(other.status, 201, other.text);
      const base = `/p/${p.publicId}`;
      assert.match((await client.get(`${base}/dashboard`)).text, /No payouts yet/);
      const partners = (await server().request('GET', '/v1/partners', { token: p.token })).body.data;
      for (const [i, partner] of partners.entries()) {
        const customer = await server().request('POST', '/v1/customers', {
          token: p.token,
          body: { key: `buyer-${i}`, email: `buyer-${i}@example.com`, partner: { id: partner.id } },
        });
        assert.equal(customer.status, 201, customer.text);
        const sale = await server().request('POST', '/v1/transactions', {
          token: p.token,
          body: { key: `sale-${i}`, amount: 100 * (i + 1), action: 'sale', customer: { key: `buyer-${i}` } },
        });
        assert.equal(sale.status, 200, sale.text);
      }
      const payout = await server().request('POST', '/v1/payouts', { token: p.token, body: {} });
      assert.equal(payout.status, 201, payout.text);
      const mine = partners.find((x: { email: string }) => x.email === 'paid@example.com');
      const myAmount = mine === partners[0] ? '$20.00' : '$40.00';
      const othersAmount = mine === partners[0] ? '$40.00' : '$20.00';
      const pending = await client.get(`${base}/dashboard`);
      assert.match(pending.text, /<h2 id="payouts-heading">Latest payouts<\/h2>/);
      const payouts = pending.text.slice(pending.text.indexOf('payouts-heading'));
      assert.match(payouts, new RegExp(`<td class="num">\\${myAmount}</td><td>On its way</td>`));
      assert.doesNotMatch(
        payouts,
        new RegExp(`\\${othersAmount}`),
        'not the batch total nor another partner',
      );
      const paid = await server().request('POST', `/v1/payouts/${payout.body.data.id}/mark-paid`, {
        token: p.token,
        body: {},
      });
      assert.equal(paid.status, 200, paid.text);
      assert.match(
        (await client.get(`${base}/dashboard`)).text,
        /<td>Paid<\/td><\/tr><\/tbody><\/table><\/div><\/section><\/main>/,
      );
    });

    test('unknown programs and pages answer the 404 page; registration can be closed', async () => {
      const p = await server().newProgram('affiliate');
      await server().request('PUT', '/v1/program', {
        token: p.token,
        body: { portal_settings: { registration_disabled: true, program_page_enabled: false } },
      });
      const client = new PageClient(server);
      for (const path of ['/p/nope/sign-in', `/p/${p.publicId}/sign-up`, `/p/${p.publicId}/nothing`]) {
        const reply = await client.get(path);
        assert.equal(reply.status, 404, path);
        assert.match(reply.text, /Page not found/);
      }
      const home = await client.get(`/p/${p.publicId}`);
      assert.equal(home.status, 303);
      assert.equal(locationOf(home), `/p/${p.publicId}/sign-in`);
      const signInPage = await client.get(`/p/${p.publicId}/sign-in`);
      assert.doesNotMatch(signInPage.text, /Sign up/);
    });
  },
  { clock, env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } },
);
