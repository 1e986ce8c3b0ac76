import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { present } from '../../src/core/present.ts';
import { startReceiver } from '../../src/modules/webhooks/webhooks.test-receiver.ts';
import { assertAccessible, browserAvailable, launchBrowser, screenshotBoth } from '../browser.ts';
import { ADMIN_TOKEN, describeEachDatabase } from '../harness.ts';
import { signUpPartner } from '../portal-client.ts';

/**
 * The owner's story in a real browser: the first user through the set-up page, a new program, a
 * partner applying on the portal while approval is by hand, the owner finding it under Pending and
 * approving it, a sale through `/v1`, its commission approved with `Approve selected`, paid out
 * and marked paid, a team member invited, a webhook's test event delivered, a key created and
 * revoked, a setting refused then saved, sign-out.
 * Screenshots of every page at desktop and phone width go to test-results/screenshots/.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

describeEachDatabase('owner console in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver(200);
    if (!skip) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await receiver.close();
  });

  const h1 = (page: Page) => page.locator('h1').textContent();

  test('set-up → new program → approve an applicant → approve its commission → sign out', {
    skip,
  }, async () => {
    const page = await present(browser, 'the browser').newPage();
    const shot = (name: string) =>
      dialect === 'sqlite' ? screenshotBoth(page, `console-${name}`) : Promise.resolve();
    const console = `${server().url}/admin`;

    await page.goto(console);
    assert.equal(await h1(page), 'Set up the console');
    await assertAccessible(page, 'set-up');
    await shot('setup');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Password').fill('Owner1234');
    await page.getByRole('button', { name: 'Create user' }).click();
    assert.equal(await h1(page), 'Programs');
    await assertAccessible(page, 'programs');

    await page.getByRole('link', { name: 'New program' }).click();
    await page.getByRole('button', { name: 'Create program' }).click();
    assert.match((await page.locator('#field-name-error').textContent()) ?? '', /Enter the program’s name/);
    await assertAccessible(page, 'new program');
    await shot('new-program');
    await page.getByLabel('Name').fill('Acme <b>Tools</b>');
    await page.getByLabel('Type').selectOption('affiliate');
    await page.getByLabel('Website (optional)').fill('https://acme.example');
    await page.getByRole('button', { name: 'Create program' }).click();
    assert.equal(await h1(page), 'Acme <b>Tools</b>', 'the name is shown as text, never as markup');
    const programUrl = page.url();
    const publicId = present(/\/admin\/programs\/([^/?#]+)$/.exec(programUrl)?.[1], 'the program id');

    // The program's API key comes from the admin API, as an operator makes one.
    const key = await server().request('POST', `/admin/v1/programs/${publicId}/api-keys`, {
      token: ADMIN_TOKEN,
      body: { name: 'console test' },
    });
    assert.equal(key.status, 201, key.text);
    const token = key.body.data.token;
    const set = await server().request('PUT', '/v1/program', {
      token,
      body: {
        program_settings: {
          partner_auto_approve: false,
          commission: { type: 'percent', value: 20 },
          commission_hold_days: 30,
        },
      },
    });
    assert.equal(set.status, 200, set.text);
    await signUpPartner(server, `/p/${publicId}`, 'jane@example.com', { name: 'Jane' });

    await page.getByRole('link', { name: 'Partners' }).click();
    await page.getByRole('link', { name: 'Pending' }).click();
    assert.match((await page.locator('tbody').textContent()) ?? '', /jane@example\.com/);
    await assertAccessible(page, 'partners');
    await shot('partners');
    await page.getByRole('button', { name: 'Approve jane@example.com' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /1 partner approved/);
    const approved = await server().request('GET', '/v1/partners?approved=true', { token });
    assert.deepEqual(
      approved.body.data.map((p) => p.email),
      ['jane@example.com'],
    );

    const partnerKey = (await server().request('GET', '/v1/partners', { token })).body.data[0]?.id ?? '';
    const customer = await server().request('POST', '/v1/customers', {
      token,
      body: { key: 'buyer-1', email: 'buyer@example.com', partner: { id: partnerKey } },
    });
    assert.equal(customer.status, 201, customer.text);
    const sale = await server().request('POST', '/v1/transactions', {
      token,
      body: { key: 'sale-1', amount: 99, amount_units: 'USD', action: 'sale', customer: { key: 'buyer-1' } },
    });
    assert.equal(sale.status, 200, sale.text);

    await page.getByRole('link', { name: 'Commissions' }).click();
    await page.getByRole('link', { name: 'Pending' }).click();
    assert.match((await page.locator('tbody').textContent()) ?? '', /\$19\.80/);
    await assertAccessible(page, 'commissions');
    await shot('commissions');
    await page.locator('tbody input[type=checkbox]').first().check();
    await page.getByRole('button', { name: 'Approve selected' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /1 commission approved/);
    const commissions = await server().request('GET', '/v1/commissions', { token });
    assert.deepEqual(
      commissions.body.data.map((c) => c.status),
      ['approved'],
    );

    await page.getByRole('link', { name: 'Payouts' }).click();
    assert.equal(await page.getByLabel('Currency').inputValue(), 'USD');
    await assertAccessible(page, 'payouts');
    await page.getByRole('button', { name: 'Create payout' }).click();
    assert.equal(await h1(page), 'Payout of $19.80');
    assert.match((await page.locator('tbody').textContent()) ?? '', /Jane Doe/);
    await assertAccessible(page, 'payout');
    await shot('payout');
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /marked as paid/);
    await page.getByRole('link', { name: 'All payouts' }).click();
    assert.match((await page.locator('tbody').textContent()) ?? '', /Paid/);
    await shot('payouts');

    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByLabel('Email').fill('ana@example.com');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /invitation was sent/);
    await assertAccessible(page, 'team');
    await shot('team');

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Name').fill('CRM');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('partner.approved').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    assert.equal(await h1(page), 'CRM');
    await page.getByRole('button', { name: 'Send test event' }).click();
    assert.match(
      (await page.getByRole('status').textContent()) ?? '',
      /Delivered: the endpoint answered 200/,
    );
    assert.match((await page.locator('tbody').textContent()) ?? '', /partner\.approved \(test\).*200/);
    await assertAccessible(page, 'webhook');
    await shot('webhook');

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('Reporting');
    await page.getByLabel('Scope').selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    const newToken = await page.getByLabel('Token').inputValue();
    assert.equal((await server().request('GET', '/v1/program', { token: newToken })).status, 200);
    await assertAccessible(page, 'keys');
    await shot('keys');
    await page.getByRole('button', { name: 'Revoke Reporting' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /revoked/);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Days in review before approval').fill('5000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    assert.match(
      (await page.locator('#setting-program_settings-commission_hold_days-error').textContent()) ?? '',
      /3650/,
    );
    await assertAccessible(page, 'settings');
    await shot('settings');
    await page.getByLabel('Days in review before approval').fill('30');
    await page.getByRole('button', { name: 'Save settings' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /settings were saved/);

    await page.getByRole('link', { name: 'Overview' }).click();
    assert.match((await page.locator('dl.figures').textContent()) ?? '', /Sales1/);
    assert.equal(await page.locator('svg.chart').count(), 4, 'clicks, signups, sales and revenue in USD');
    assert.match((await page.locator('.board').textContent()) ?? '', /Jane.*1 sale/);
    await assertAccessible(page, 'overview');
    await shot('overview');

    await page.getByRole('button', { name: 'Sign out' }).click();
    assert.equal(await h1(page), 'Sign in to the console');
    await assertAccessible(page, 'sign-in');
    await shot('sign-in');
    await page.goto(programUrl);
    assert.equal(await h1(page), 'Sign in to the console', 'signed out: the program asks for a sign-in');
  });
});
