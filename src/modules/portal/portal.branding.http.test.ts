import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeEachDatabase, type TestProgram, type TestServer } from '../../../test/harness.ts';
import { SVG_LOGO } from '../../../test/logos.ts';
import { startSmtp } from '../../../test/smtp-sink.ts';
import type { Deps } from '../../context.ts';
import { nowTimestamp } from '../../core/time.ts';
import { queueEmail } from '../../outbox/outbox.ts';
import { EmailSender } from '../emails/emails.sender.ts';

/** Branding on the public pages and in the e-mails (issue 30). */

const TERMS = 'https://acme.example.com/partner-terms';

async function brand(server: TestServer, p: TestProgram) {
  const put = await server.request('PUT', '/v1/program', {
    token: p.token,
    body: { program_settings: { brand_color: '#0F766E', terms_url: TERMS } },
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const res = await fetch(`${server.url}/v1/program/logo`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.token}`, 'content-type': 'image/svg+xml' },
    body: SVG_LOGO,
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { data: { url: string } }).data.url;
}

/** The page's header, stylesheet and footer carry the brand. */
function assertBranded(html: string, logo: string, name: string) {
  assert.ok(html.includes(`<img src="${logo}" alt/><span>${name}</span>`), html);
  assert.ok(html.includes('<link rel="stylesheet" href="/assets/accent/0f766e.css"/>'), html);
  assert.ok(html.includes(`<a href="${TERMS}">Terms</a>`), 'the footer links the terms');
  assert.doesNotMatch(html, /Referrals by Vouch/);
}

let smtp: Awaited<ReturnType<typeof startSmtp>>;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

describeEachDatabase('branding on pages and e-mails', (server) => {
  test('the partner sign-up shows the logo and name, the colour, and links its terms checkbox to the terms URL', async () => {
    const p = await server().newProgram('affiliate', { name: 'Acme Partners' });
    const logo = await brand(server(), p);
    const page = await server().request<string>('GET', `/p/${p.publicId}/sign-up`, {
      headers: { accept: 'text/html' },
    });
    assert.equal(page.status, 200);
    assertBranded(page.text, logo, 'Acme Partners');
    assert.ok(
      page.text.includes(
        `<label for="field-terms">I accept the <a href="${TERMS}">terms of the Acme Partners partner program</a>.</label>`,
      ),
      page.text,
    );
    assert.match(page.headers.get('content-security-policy') ?? '', /img-src 'self' https:/);

    const css = await fetch(`${server().url}/assets/accent/0f766e.css`);
    assert.equal(css.status, 200);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(await css.text(), /--accent: #0f766e;/);
    assert.equal((await fetch(`${server().url}/assets/accent/zz.css`)).status, 404);
  });

  test('without a terms URL the checkbox names the terms without a link; the name stands in the header', async () => {
    const p = await server().newProgram('affiliate', { name: 'Plain Co' });
    const page = await server().request<string>('GET', `/p/${p.publicId}/sign-up`, {
      headers: { accept: 'text/html' },
    });
    assert.ok(
      page.text.includes(
        '<label for="field-terms">I accept the terms of the Plain Co partner program.</label>',
      ),
    );
    assert.ok(page.text.includes('<p class="brand"><span>Plain Co</span></p>'));
    assert.doesNotMatch(page.text, /accent\//);
  });

  test('the customer portal, the newsletter share page and the subscriber portal carry the brand', async () => {
    const referral = await server().newProgram('referral', { name: 'Friends Club' });
    const logo = await brand(server(), referral);
    const offer = await server().request<string>('GET', `/c/${referral.publicId}`, {
      headers: { accept: 'text/html' },
    });
    assert.equal(offer.status, 200);
    assertBranded(offer.text, logo, 'Friends Club');

    const newsletter = await server().newProgram('newsletter', { name: 'Morning Brief' });
    const letterLogo = await brand(server(), newsletter);
    const sharer = await server().request('POST', '/v1/subscribers', {
      token: newsletter.token,
      body: { email: 'ann@example.com', name: 'Ann' },
    });
    const { share_link: shareLink, portal_link: portalLink } = (
      sharer.body as { data: { share_link: string; portal_link: string } }
    ).data;
    const share = await server().request<string>('GET', new URL(shareLink).pathname, {
      headers: { accept: 'text/html' },
    });
    assert.equal(share.status, 200);
    assertBranded(share.text, letterLogo, 'Morning Brief');
    const portal = await server().request<string>('GET', new URL(portalLink).pathname, {
      headers: { accept: 'text/html' },
    });
    assert.equal(portal.status, 200);
    assertBranded(portal.text, letterLogo, 'Morning Brief');
  });

  test('e-mails are sent in the brand: logo (absolute), colour and terms', async () => {
    const p = await server().newProgram('affiliate', { name: 'Acme Partners' });
    const logo = await brand(server(), p);
    const deps: Deps = {
      ...server().deps,
      config: {
        ...server().deps.config,
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
        publicUrl: 'https://vouch.example',
      },
    };
    await queueEmail(
      deps.database.db,
      p.id,
      {
        to: `brand-mail-${server().dialect}@example.com`,
        subject: 'Hello',
        text: 'Hello',
        html: '<p>Hello</p>',
      },
      nowTimestamp(deps.clock),
    );
    const sender = new EmailSender(deps);
    try {
      await sender.runOnce();
    } finally {
      sender.close();
    }
    const mail = smtp.mails.find((m) => m.to.includes(`brand-mail-${server().dialect}@example.com`));
    assert.ok(mail);
    // Quoted-printable: soft line breaks and `=` written as `=3D`.
    const html = mail.raw.replace(/=\r?\n/g, '').replaceAll('=3D', '=');
    assert.ok(html.includes(`<img src="https://vouch.example${logo}" alt="Acme Partners"`), html);
    assert.ok(html.includes('border-bottom:4px solid #0f766e'));
    assert.ok(html.includes(`<a href="${TERMS}"`));
    assert.ok(html.includes('<p>Hello</p>'));
  });
});
