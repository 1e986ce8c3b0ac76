import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshotBoth } from '../../../test/browser.ts';
import {
  type AnswerOf,
  describeEachDatabase,
  type TestProgram,
  type TestServer,
} from '../../../test/harness.ts';
import { present } from '../../core/present.ts';
import { LINK_CACHE_MS } from './tracking.service.ts';

/**
 * The tracking script in a real browser: a company's landing page carries /js/vouch.js; a visit
 * with ?aff=KEY stores the cookie, fills the sign-up form's hidden input and counts the click;
 * the form posts to the company's backend (a tiny server here), which creates the customer
 * through /v1 with the key. Under CI Chromium is required; elsewhere the tests skip without it.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The company's site: a landing page with the script and a sign-up form, and its backend. */
function companySite(vouch: () => { url: string; program: TestProgram; server: TestServer }): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site.test');
    if (request.method === 'GET' && url.pathname === '/landing') {
      const { url: vouchUrl, program } = vouch();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>
<script src="${vouchUrl}/js/vouch.js" data-program="${program.publicId}" async></script>
<style>body{font-family:sans-serif;margin:2rem}label{display:block;margin:.5rem 0}</style></head>
<body><h1>Acme widgets</h1><p>Sign up and get started.</p>
<form method="post" action="/signup"><label>E-mail <input name="email" type="email" required></label>
<input type="hidden" name="vouch_referral" value=""><button type="submit">Sign up</button></form></body></html>`);
      return;
    }
    if (request.method === 'POST' && url.pathname === '/signup') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', async () => {
        const form = new URLSearchParams(body);
        const email = form.get('email') ?? '';
        const key = form.get('vouch_referral') ?? '';
        const { server, program } = vouch();
        const created = await server.request('POST', '/v1/customers', {
          token: program.token,
          body: { key: `c-${email.split('@')[0]}`, email, partner: { key } },
        });
        response.writeHead(created.status === 201 ? 200 : 500, {
          'content-type': 'text/html; charset=utf-8',
        });
        response.end(
          `<!doctype html><html><body><h1 id="result">${created.status === 201 ? 'Welcome' : 'Failed'}</h1><pre>${escapeHtml(created.text)}</pre></body></html>`,
        );
      });
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not found');
  });
}

describeEachDatabase('tracking in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  let site: Server | undefined;
  let siteUrl = '';
  let program: TestProgram;
  let partnerId = '';

  before(async () => {
    if (skip) return;
    const listening = companySite(() => ({ url: server().url, program, server: server() }));
    site = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    program = await server().newProgram('affiliate', { website: `${siteUrl}/landing` });
    const partner = await server().request('POST', '/v1/partners', {
      token: program.token,
      body: { email: 'pat@example.com', key: `pat-${dialect}` },
    });
    assert.equal(partner.status, 201, partner.text);
    partnerId = partner.body.data.id;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  });

  const clicks = async () =>
    (await server().request('GET', `/v1/partners/${partnerId}`, { token: program.token })).body.data.referrals
      .clicks;

  test('a landing page with ?aff= stores the cookie, fills the form, counts the click; the sign-up is attributed', {
    skip,
  }, async () => {
    const context = await present(browser, 'the browser').newContext();
    const page = await context.newPage();
    const key = `pat-${dialect}`;
    await page.goto(`${siteUrl}/landing?aff=${key}`);
    await page.waitForFunction('window.vouch?.ready !== undefined');
    await page.evaluate('window.vouch.ready');
    assert.equal(await page.evaluate('window.vouch.referral'), key);
    assert.equal(await page.inputValue('input[name="vouch_referral"]'), key);
    const cookie = (await context.cookies()).find((c) => c.name === 'vouch_partner');
    assert.equal(cookie?.value, key);
    assert.equal(cookie?.sameSite, 'Lax');
    // The program's 60 days, give or take the test's own time.
    assert.ok(
      Math.abs(present(cookie, 'the referral cookie').expires - (Date.now() / 1000 + 60 * 86_400)) < 3600,
      String(cookie?.expires),
    );
    // The click's id, kept first-party for the owner's backend (`context.click_id`), with the
    // page's URL as its landing URL.
    const clickId = (await context.cookies()).find((c) => c.name === 'vouch_click')?.value ?? '';
    assert.match(clickId, /^[A-Za-z0-9_-]{12}$/);
    assert.equal(await page.evaluate('window.vouch.click'), clickId);
    const deadline = Date.now() + 5000;
    while ((await clicks()) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(await clicks(), 1);
    const landed = await server()
      .deps.database.db.selectFrom('clicks')
      .select('landing_url')
      .where('public_id', '=', clickId)
      .executeTakeFirst();
    assert.equal(landed?.landing_url, `${siteUrl}/landing?aff=${key}`);
    await screenshotBoth(page, `tracking-landing-${dialect}`);

    await page.fill('input[name="email"]', `buyer-${dialect}@example.com`);
    await Promise.all([page.waitForURL(`${siteUrl}/signup`), page.click('button[type="submit"]')]);
    assert.equal(await page.textContent('#result'), 'Welcome');
    await screenshotBoth(page, `tracking-signup-${dialect}`);
    const customer = await server().request<AnswerOf<'GET', '/v1/customers/{id}', 'affiliate'>>(
      'GET',
      `/v1/customers/c-buyer-${dialect}`,
      { token: program.token },
    );
    assert.equal(customer.status, 200, customer.text);
    assert.equal(customer.body.data.partner, partnerId);
    await context.close();
  });

  test('following /r/{key} lands on the website with the key, cookie set', { skip }, async () => {
    const context = await present(browser, 'the browser').newContext();
    const page = await context.newPage();
    const key = `pat-${dialect}`;
    await page.goto(`${server().url}/r/${key}`);
    assert.equal(page.url(), `${siteUrl}/landing?aff=${key}`);
    await page.evaluate('window.vouch.ready');
    assert.equal(await page.inputValue('input[name="vouch_referral"]'), key);
    const cookie = (await context.cookies()).find((c) => c.name === 'vouch_partner');
    assert.equal(cookie?.value, key);
    await screenshotBoth(page, `tracking-redirect-${dialect}`);
    const missing = await page.goto(`${server().url}/r/no-such-link-${dialect}`);
    assert.equal(missing?.status(), 404);
    await screenshotBoth(page, `tracking-not-found-${dialect}`);
    await context.close();
  });

  test('with first_click a second link does not replace the stored key; with last_click it does', {
    skip,
  }, async () => {
    const second = `pat2-${dialect}`;
    const created = await server().request('POST', '/v1/partners', {
      token: program.token,
      body: { email: `pat2-${dialect}@example.com`, key: second },
    });
    assert.equal(created.status, 201, created.text);
    const first = `pat-${dialect}`;
    const visit = async (key: string) => {
      const context = await present(browser, 'the browser').newContext();
      const page = await context.newPage();
      await page.goto(`${siteUrl}/landing?aff=${first}`);
      await page.evaluate('window.vouch.ready');
      await page.goto(`${siteUrl}/landing?aff=${key}`);
      await page.evaluate('window.vouch.ready');
      const stored = (await context.cookies()).find((c) => c.name === 'vouch_partner')?.value;
      const input = await page.inputValue('input[name="vouch_referral"]');
      await context.close();
      return [stored, input];
    };
    // Links and their program's settings are reused for a second (LINK_CACHE_MS).
    const setAttribution = async (attribution: string) => {
      const res = await server().request('PUT', '/v1/program', {
        token: program.token,
        body: { program_settings: { attribution } },
      });
      await new Promise((resolve) => setTimeout(resolve, LINK_CACHE_MS + 100));
      return res;
    };
    assert.equal((await setAttribution('first_click')).status, 200);
    assert.deepEqual(await visit(second), [first, first]);
    assert.equal((await setAttribution('last_click')).status, 200);
    assert.deepEqual(await visit(second), [second, second]);
  });
});
