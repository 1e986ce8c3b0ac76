import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, type TestServer } from '../../../test/harness.ts';
import { PageClient, signUpPartner } from '../../../test/portal-client.ts';
import { lastMailTo, startSmtp } from '../../../test/smtp-sink.ts';

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

/** Opening a used or expired link: it says so and offers a new one; no "Sign in now" that cannot work. */
function assertSpent(reply: { status: number; text: string }, newLink: string) {
  assert.equal(reply.status, 410, reply.text);
  assert.match(reply.text, /expired or was already used/);
  assert.ok(reply.text.includes(`href="${newLink}"`), 'a way to a new link');
  assert.doesNotMatch(reply.text, /Sign in now/);
}

async function expireLinks(server: TestServer, programId: number) {
  await server.deps.database.db
    .updateTable('portal_tokens')
    .set({ expires_at: '2000-01-01T00:00:00.000000Z' })
    .where('program_id', '=', programId)
    .where('used_at', 'is', null)
    .execute();
}

describeEachDatabase('a used sign-in link', (server) => {
  test('partner portal: a used or expired link says so when opened', async () => {
    const p = await server().newProgram('affiliate');
    await signUpPartner(server, `/p/${p.publicId}`, 'lee@example.com');
    await server().request('PUT', '/v1/program', {
      token: p.token,
      body: { portal_settings: { passwordless_login_enabled: true } },
    });
    const client = new PageClient(server);
    await client.submit(`/p/${p.publicId}/sign-in-link`, { email: 'lee@example.com' });
    const link = linkIn(await lastMailTo(server().deps, smtp, 'lee@example.com'));
    const fresh = await client.get(link);
    assert.equal(fresh.status, 200);
    assert.match(fresh.text, /Sign in now/);
    // A second tab opened while the link was fresh: its button, pressed after the first, is refused.
    const otherTab = new PageClient(server);
    assert.equal((await otherTab.get(link)).status, 200);
    assert.equal((await client.post(link)).status, 303);
    assertSpent(await otherTab.post(link), `/p/${p.publicId}/sign-in-link`);

    assertSpent(await new PageClient(server).get(link), `/p/${p.publicId}/sign-in-link`);

    await client.submit(`/p/${p.publicId}/sign-in-link`, { email: 'lee@example.com' });
    const late = linkIn(await lastMailTo(server().deps, smtp, 'lee@example.com'));
    await expireLinks(server(), p.id);
    assertSpent(await new PageClient(server).get(late), `/p/${p.publicId}/sign-in-link`);
    assertSpent(
      await new PageClient(server).get(`/p/${p.publicId}/link/not-a-token`),
      `/p/${p.publicId}/sign-in-link`,
    );
  });

  test('customer portal: a used link says so when opened', async () => {
    const p = await server().newProgram('referral');
    await server().request('POST', '/v1/customers', {
      token: p.token,
      body: { id: 'ann', email: 'ann@example.com' },
    });
    const client = new PageClient(server);
    await client.submit(`/c/${p.publicId}/sign-in`, { email: 'ann@example.com' });
    const link = linkIn(await lastMailTo(server().deps, smtp, 'ann@example.com'));
    const fresh = await client.get(link);
    assert.equal(fresh.status, 200);
    assert.match(fresh.text, /Sign in now/);
    assert.equal((await client.post(link)).status, 303);

    assertSpent(await new PageClient(server).get(link), `/c/${p.publicId}/sign-in`);
  });
});
