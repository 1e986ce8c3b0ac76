import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dataOf, describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { locationOf, PageClient } from '../../../test/portal-client.ts';
import { lastMailTo, startSmtp } from '../../../test/smtp-sink.ts';
import { present } from '../../core/present.ts';
import type { ProgramType } from '../../core/program-types.ts';

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

const linkIn = (mail: string) => {
  const url = /https?:\/\/[^\s"<]+\/link\/[A-Za-z0-9_-]{43}/.exec(mail)?.[0];
  assert.ok(url, 'a sign-in URL in the mail');
  return new URL(url).pathname;
};

async function post<const P extends string, K extends ProgramType>(
  server: TestServer,
  p: TestProgram<K>,
  path: P,
  body: unknown,
) {
  const res = await server.request('POST', path, { token: p.token, body });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return dataOf(res);
}

/** Asks for a link and uses it; answers the signed-in client. */
async function signIn(server: () => TestServer, p: TestProgram, email: string) {
  const client = new PageClient(server);
  const sent = await client.submit(`/c/${p.publicId}/sign-in`, { email });
  assert.match(sent.text, /we sent it a sign-in link/);
  const link = linkIn(await lastMailTo(server().deps, smtp, email.toLowerCase()));
  assert.equal((await client.get(link)).status, 200);
  const used = await client.post(link);
  assert.equal(used.status, 303, used.text);
  assert.equal(locationOf(used), `/c/${p.publicId}/home`);
  return { client, link };
}

describeEachDatabase(
  'refer-a-friend customer portal',
  (server) => {
    test('offer page, sign-in by e-mailed link, the link, masked friends and the balance', async () => {
      const p = await server().newProgram('referral', { name: 'Bike <Club>' });
      const visitor = new PageClient(server);
      const offer = await visitor.get(`/c/${p.publicId}`);
      assert.equal(offer.status, 200);
      assert.match(offer.text, /Give 10 USD, get 10 USD, when your friend first buys\./);
      assert.match(offer.text, /Bike &lt;Club>/);

      const ann = await post(server(), p, '/v1/customers', {
        id: 'ann',
        email: 'ann@example.com',
        name: 'Ann',
      });
      await post(server(), p, '/v1/customers', {
        id: 'bob',
        email: 'bob@example.com',
        name: 'Bob Stone',
        referring_customer: { id: 'ann' },
      });
      await post(server(), p, '/v1/transactions', { amount: 40, action: 'sale', customer: { id: 'bob' } });

      const { client, link } = await signIn(server, p, 'ANN@example.com');
      const cookie = client.cookie('vouch_customer');
      assert.ok(cookie, 'a session cookie');
      const home = await client.get(`/c/${p.publicId}/home`);
      assert.equal(home.status, 200, home.text);
      assert.ok(home.text.includes(`value="${ann.referral_link}"`), 'the referral link to copy');
      assert.match(home.text, /<dt>Joined<\/dt><dd>1<\/dd>/);
      assert.match(home.text, /<dt>Bought<\/dt><dd>1<\/dd>/);
      assert.match(home.text, /<td>B\. S\.<\/td>/);
      assert.doesNotMatch(home.text, /Stone|bob@example/);
      assert.match(home.text, /Balance in USD<\/dt><dd>\$10\.00/);

      const reused = new PageClient(server);
      assert.equal((await reused.get(link)).status, 410, 'a link signs in once');

      const out = await client.post(`/c/${p.publicId}/sign-out`);
      assert.match(out.text, /You are signed out/);
      assert.equal((await client.get(`/c/${p.publicId}/home`)).status, 303);
    });

    test('unknown e-mails answer alike; archived customers are signed out; other programs refuse the session', async () => {
      const p = await server().newProgram('referral');
      const q = await server().newProgram('referral');
      await post(server(), p, '/v1/customers', { id: 'cy', email: 'cy@example.com' });
      const stranger = new PageClient(server);
      const unknown = await stranger.submit(`/c/${p.publicId}/sign-in`, { email: 'nobody@example.com' });
      assert.match(unknown.text, /we sent it a sign-in link/);
      assert.equal(smtp.mails.filter((m) => m.to.includes('nobody@example.com')).length, 0);

      const { client } = await signIn(server, p, 'cy@example.com');
      const thief = new PageClient(server);
      thief.setCookie(
        'vouch_customer',
        present(client.cookie('vouch_customer'), 'the customer session cookie'),
        `/c/${q.publicId}`,
      );
      assert.equal((await thief.get(`/c/${q.publicId}/home`)).status, 303);
      assert.equal((await client.get(`/c/${p.publicId}/home`)).status, 200);
      await server().request('POST', '/v1/customers/cy/archive', { token: p.token });
      assert.equal((await client.get(`/c/${p.publicId}/home`)).status, 303, 'archived: signed out');

      const forged = await stranger.post(`/c/${p.publicId}/sign-in`, {
        email: 'cy@example.com',
        _csrf: 'forged',
      });
      assert.equal(forged.status, 403);
      const affiliate = await server().newProgram('affiliate');
      assert.equal((await stranger.get(`/c/${affiliate.publicId}/sign-in`)).status, 404);
      await server().request('PUT', '/v1/program', {
        token: q.token,
        body: { program_settings: { referral_portal_enabled: false } },
      });
      assert.equal((await stranger.get(`/c/${q.publicId}/sign-in`)).status, 404, 'portal off');
    });
  },
  { env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } },
);
