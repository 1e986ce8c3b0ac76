import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { itemAt } from '../../../test/items.ts';
import { PageClient, signUpPartner } from '../../../test/portal-client.ts';
import { lastMailTo, startSmtp } from '../../../test/smtp-sink.ts';

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

async function post(server: TestServer, p: TestProgram, path: string, body: unknown) {
  const res = await server.request<{ data: unknown }>('POST', path, { token: p.token, body });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return res.body.data;
}

/** A customer named in two fields ("Kim", "Lee") shows by both initials, wherever names are masked. */
describeEachDatabase('masked names use the name and the surname', (server) => {
  test('the partner dashboard shows "Kim" "Lee" as K. L.', async () => {
    const p = await server().newProgram('affiliate');
    const { client } = await signUpPartner(server, `/p/${p.publicId}`, 'pat@example.com');
    const partner = itemAt(
      (await server().request('GET', '/v1/partners?limit=1', { token: p.token })).body.data,
    );
    await post(server(), p, '/v1/customers', {
      key: 'kim',
      name: 'Kim',
      surname: 'Lee',
      email: 'kim@example.com',
      partner: { id: partner.id },
    });
    const dashboard = await client.get(`/p/${p.publicId}/dashboard`);
    assert.equal(dashboard.status, 200, dashboard.text);
    assert.match(dashboard.text, /<td>K\. L\.<\/td>/);
    assert.doesNotMatch(dashboard.text, /Kim|Lee|kim@example/);
  });

  test('the customer portal shows a friend "Kim" "Lee" as K. L.', async () => {
    const p = await server().newProgram('referral');
    await post(server(), p, '/v1/customers', { id: 'ann', email: 'ann@example.com', name: 'Ann' });
    await post(server(), p, '/v1/customers', {
      id: 'kim',
      email: 'kim@example.com',
      name: 'Kim',
      surname: 'Lee',
      referring_customer: { id: 'ann' },
    });
    const client = new PageClient(server);
    await client.submit(`/c/${p.publicId}/sign-in`, { email: 'ann@example.com' });
    const mail = await lastMailTo(server().deps, smtp, 'ann@example.com');
    const url = /https?:\/\/[^\s"<]+\/link\/[A-Za-z0-9_-]{43}/.exec(mail)?.[0];
    assert.ok(url, 'a sign-in link');
    const link = new URL(url).pathname;
    await client.get(link);
    assert.equal((await client.post(link)).status, 303);
    const home = await client.get(`/c/${p.publicId}/home`);
    assert.equal(home.status, 200, home.text);
    assert.match(home.text, /<td>K\. L\.<\/td>/);
    assert.doesNotMatch(home.text, /Kim|Lee|kim@example/);
  });
});
