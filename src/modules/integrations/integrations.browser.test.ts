import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshotBoth } from '../../../test/browser.ts';
import { describeEachDatabase, type TestProgram } from '../../../test/harness.ts';
import { present } from '../../core/present.ts';

/**
 * vouch.js and Stripe Checkout in a real browser: a landing page with a Payment Link, a link that
 * already has a query, a link elsewhere and Stripe's pricing table. After a visit with ?aff=KEY the
 * script exposes the key as `Vouch.referral` and hands it to Stripe as `client_reference_id`.
 * Under CI Chromium is required; elsewhere the tests skip without it.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

function landingSite(vouch: () => { url: string; program: TestProgram }): Server {
  return createServer((_request, response) => {
    const { url, program } = vouch();
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><meta charset="utf-8"><title>Acme</title>
<script src="${url}/js/vouch.js" data-program="${program.publicId}" async></script></head>
<body><h1>Acme Pro</h1>
<a id="plink" href="https://buy.stripe.com/test_4gw5kD0Gk">Buy Pro</a>
<a id="plink-query" href="https://buy.stripe.com/test_4gw5kD0Gk?prefilled_email=a%40example.com">Buy for a</a>
<a id="elsewhere" href="https://example.com/pricing">Pricing</a>
<stripe-pricing-table id="table" pricing-table-id="prctbl_1Q" publishable-key="pk_test_1"></stripe-pricing-table>
</body></html>`);
  });
}

describeEachDatabase('vouch.js and Stripe Checkout in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  let site: Server | undefined;
  let siteUrl = '';
  let program: TestProgram;

  before(async () => {
    if (skip) return;
    const listening = landingSite(() => ({ url: server().url, program }));
    site = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
    program = await server().newProgram('affiliate', { website: `${siteUrl}/landing` });
    const partner = await server().request('POST', '/v1/partners', {
      token: program.token,
      body: { email: 'pat@example.com', key: `pat_${dialect}` },
    });
    assert.equal(partner.status, 201, partner.text);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (site ? site.close(resolve) : resolve(undefined)));
  });

  test('a visit with ?aff= gives Stripe links and the pricing table the key as client_reference_id', {
    skip,
  }, async () => {
    const context = await present(browser, 'the browser').newContext();
    const page = await context.newPage();
    const key = `pat_${dialect}`;
    await page.goto(`${siteUrl}/landing?aff=${key}`);
    await page.waitForFunction('window.Vouch?.ready !== undefined');
    await page.evaluate('window.Vouch.ready');
    assert.equal(await page.evaluate('window.Vouch.referral'), key);
    assert.equal(
      await page.getAttribute('#plink', 'href'),
      `https://buy.stripe.com/test_4gw5kD0Gk?client_reference_id=${key}`,
    );
    assert.equal(
      await page.getAttribute('#plink-query', 'href'),
      `https://buy.stripe.com/test_4gw5kD0Gk?prefilled_email=a%40example.com&client_reference_id=${key}`,
    );
    assert.equal(await page.getAttribute('#elsewhere', 'href'), 'https://example.com/pricing');
    assert.equal(await page.getAttribute('#table', 'client-reference-id'), key);
    await screenshotBoth(page, `integrations-stripe-links-${dialect}`);

    // A later visit without the parameter still carries the stored key.
    const again = await context.newPage();
    await again.goto(`${siteUrl}/landing`);
    await again.waitForFunction('window.Vouch?.ready !== undefined');
    await again.evaluate('window.Vouch.ready');
    assert.equal(
      await again.getAttribute('#plink', 'href'),
      `https://buy.stripe.com/test_4gw5kD0Gk?client_reference_id=${key}`,
    );
    await context.close();
  });
});
