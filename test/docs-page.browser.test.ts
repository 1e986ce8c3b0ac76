import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, screenshotBoth } from './browser.ts';
import { startServer, startupBudgetMs, type TestServer, testDialects } from './harness.ts';

/**
 * Issue 29: `/docs` in a real browser. The reference renders with a clean console (no
 * Content-Security-Policy violation, no failed request), asks nothing of another host, and is
 * branded as Vouch rather than as the framework. The page does not depend on the database, so
 * one database is enough. Under CI Chromium is required; elsewhere the test skips without it.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

let server: TestServer;
let browser: Browser;
before(async () => {
  if (skip) return;
  server = await startServer({ dialect: testDialects()[0] ?? 'sqlite' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test('/docs renders the reference with a clean console, from this origin only, as Vouch', {
  skip,
}, async () => {
  const page = await browser.newPage();
  const problems: string[] = [];
  const origin = new URL(server.url).origin;
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`another host: ${request.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP ${event.violatedDirective} blocked ${event.blockedURI} in ${event.sourceFile}`),
    );
  });

  // The first read of the document generates it: as slow as a start-up on a busy machine.
  page.setDefaultTimeout(startupBudgetMs());
  const response = await page.goto(`${server.url}/docs`);
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()['content-security-policy'] ?? '', /style-src 'self'(;|$)/);
  await page.waitForSelector('.opblock-summary');
  // Opening an operation renders its parameters, responses and schemas: what a reader does first.
  await page.locator('.opblock-summary').first().click();
  await page.waitForSelector('.opblock-body');
  await page.locator('.opblock-section-header button.try-out__btn').first().click();
  await page.waitForSelector('.execute-wrapper');
  await page.locator('.auth-wrapper .authorize').click();
  await page.waitForSelector('.dialog-ux');
  await page.locator('.dialog-ux .close-modal').click();

  assert.equal(await page.title(), 'Vouch API reference');
  assert.equal((await page.locator('.vouch-header').textContent())?.trim(), 'VouchAPI reference');
  const logoWidth = await page
    .locator('.vouch-header img')
    .evaluate((img: HTMLImageElement) => img.naturalWidth);
  assert.ok(logoWidth > 0, 'the Vouch logo loaded');
  assert.equal(await page.locator('.topbar').count(), 0, "no framework top bar (Fastify's logo)");
  assert.deepEqual(problems, []);

  // Last: taking a screenshot injects a style of the test tool's own, which the policy refuses.
  await screenshotBoth(page, 'docs');
  await page.close();
});
