import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { present } from '../../src/core/present.ts';
import {
  assertAccessible,
  browserAvailable,
  clickAndLoad,
  launchBrowser,
  screenshotBoth,
} from '../browser.ts';
import { describeEachDatabase } from '../harness.ts';
import { itemAt } from '../items.ts';
import { lastMailTo, type SmtpSink, startSmtp } from '../smtp-sink.ts';

/**
 * A partner's story in a real browser: the program page, sign-up, the dashboard with its link, a
 * click and a sale made through the API showing as figures and a commission, settings, sign-out,
 * and sign-in again with a link read from the e-mail. Screenshots of every page at desktop and
 * phone width go to test-results/screenshots/ for review.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

let smtp: SmtpSink;
before(async () => {
  smtp = await startSmtp();
});
after(() => smtp.close());

describeEachDatabase(
  'partner portal in a browser',
  (server, dialect) => {
    let browser: Browser | undefined;
    before(async () => {
      if (!skip) browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
    });

    const h1 = (page: Page) => page.locator('h1').textContent();

    test('program page → sign-up → dashboard → a click and a sale → sign-out → sign-in by e-mail link', {
      skip,
    }, async () => {
      const p = await server().newProgram('affiliate', {
        name: 'Acme Tools',
        website: 'https://acme.example',
      });
      const token = p.token;
      const settings = await server().request('PUT', '/v1/program', {
        token,
        body: {
          program_settings: {
            commission: { type: 'percent', value: 20, duration: 'months', duration_value: 12 },
            commission_hold_days: 30,
          },
          portal_settings: { passwordless_login_enabled: true, leads_page_enabled: true },
        },
      });
      assert.equal(settings.status, 200, settings.text);
      const context = await present(browser, 'the browser').newContext();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().url });
      const page = await context.newPage();
      const shot = (name: string) =>
        dialect === 'sqlite' ? screenshotBoth(page, `partner-${name}`) : Promise.resolve();
      const portal = `${server().url}/p/${p.publicId}`;

      await page.goto(portal);
      assert.equal(await h1(page), 'Become a partner of Acme Tools');
      assert.match(
        (await page.locator('main').textContent()) ?? '',
        /20 % of every payment for 12 months, paid after a 30-day hold/,
      );
      await assertAccessible(page, 'program page');
      await shot('program');

      await page.getByRole('link', { name: 'Sign up as a partner' }).click();
      await page.getByLabel('First name').fill('Jane');
      await page.getByLabel('Last name (optional)').fill('Doe');
      await page.getByLabel('E-mail address').fill('jane@example.com');
      await page.getByLabel('Password').fill('weak');
      await page.getByLabel(/I accept the terms/).check();
      await page.getByRole('button', { name: 'Create my partner account' }).click();
      assert.match(
        (await page.locator('#field-password-error').textContent()) ?? '',
        /at least 8 characters/,
      );
      await assertAccessible(page, 'sign-up with errors');
      await shot('sign-up-errors');
      await page.getByLabel('Password').fill('Secret123');
      await page.getByLabel(/I accept the terms/).check();
      await page.getByRole('button', { name: 'Create my partner account' }).click();
      assert.equal(await h1(page), 'Welcome, Jane');

      const partner = itemAt((await server().request('GET', '/v1/partners?limit=1', { token })).body.data);
      const detail = (await server().request('GET', `/v1/partners/${partner.id}`, { token })).body.data;
      // The main link is Vouch's tracking link (counts without the script); the website's beside it.
      const key = new URL(detail.referral_link).searchParams.get('aff');
      const mainLink = await page.getByLabel('Main link').inputValue();
      assert.ok(mainLink.endsWith(`/r/${p.publicId}/${key}`), mainLink);
      assert.equal(await page.getByLabel(/Direct link to the website/).inputValue(), detail.referral_link);
      const copy = page.getByRole('button', { name: 'Copy link' }).first();
      await copy.click();
      await page.getByText('Link copied.').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), mainLink);

      // A visitor follows the main link (its tracking redirect), then buys through the API.
      const click = await server().request('GET', new URL(mainLink).pathname, {
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) visitor', accept: 'text/html' },
      });
      assert.equal(click.status, 302, click.text);
      const customer = await server().request('POST', '/v1/customers', {
        token,
        body: { key: 'buyer-1', name: 'John Smith', email: 'john@example.com', partner: { key } },
      });
      assert.equal(customer.status, 201, customer.text);
      const sale = await server().request('POST', '/v1/transactions', {
        token,
        body: {
          key: 'sale-1',
          amount: 99,
          amount_units: 'USD',
          action: 'sale',
          customer: { key: 'buyer-1' },
        },
      });
      assert.equal(sale.status, 200, sale.text);
      // Clicks are written in batches every half second.
      for (let i = 0; i < 20; i++) {
        await page.reload();
        if ((await page.locator('dl.figures div').first().textContent()) === 'Clicks1') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const figures = await page.locator('dl.figures').textContent();
      assert.match(figures ?? '', /Clicks1/);
      assert.match(figures ?? '', /Signups1/);
      assert.match(figures ?? '', /Paying customers1/);
      assert.match(figures ?? '', /Revenue\$99\.00/);
      assert.match(figures ?? '', /Commissions pending\$19\.80/);
      assert.match((await page.locator('#commissions-heading + div').textContent()) ?? '', /\$19\.80Pending/);
      assert.match((await page.locator('#customers-heading + div').textContent()) ?? '', /J\. S\./);
      await assertAccessible(page, 'dashboard');
      await shot('dashboard');

      const leadForm = await server().request('PUT', '/v1/leads/details', {
        token,
        body: {
          leads_custom_form_fields: [
            { type: 'input', title: 'Company', required: true },
            { type: 'checkbox', title: 'Interests', options: ['SEO', 'Ads'] },
            { type: 'countries', title: 'Country' },
            { type: 'textarea', title: 'Notes', description: 'Anything we should know' },
          ],
        },
      });
      assert.equal(leadForm.status, 200, leadForm.text);
      await page.getByRole('link', { name: 'Leads' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Globex');
      await page.getByLabel('E-mail address').fill('buyer@globex.example');
      await page.getByRole('button', { name: 'Submit lead' }).click();
      assert.match((await page.locator('.error').first().textContent()) ?? '', /Answer this question/);
      await shot('leads-errors');
      await page.getByLabel('Company').fill('Globex Corp');
      await page.getByRole('checkbox', { name: 'SEO' }).check();
      await page.getByRole('checkbox', { name: 'Ads' }).check();
      await page.getByLabel('Country (optional)').selectOption('FR');
      await page.getByRole('button', { name: 'Submit lead' }).click();
      assert.match((await page.getByRole('status').textContent()) ?? '', /your lead is submitted/);
      assert.match(
        (await page.locator('#your-leads-heading + div').textContent()) ?? '',
        /Globexbuyer@globex\.exampleSubmitted/,
      );
      await assertAccessible(page, 'leads');
      await shot('leads');
      const leads = (await server().request('GET', '/v1/leads', { token })).body.data;
      assert.equal(leads[0]?.submitter.email, 'jane@example.com');

      await page.getByRole('link', { name: 'Settings' }).click();
      assert.equal(await h1(page), 'Settings');
      await assertAccessible(page, 'settings');
      await shot('settings');

      // Payout details: choosing a method (a reload, no script) shows only its fields; a missing
      // field is named on the page, then the details are saved.
      assert.equal(await page.getByLabel('IBAN').count(), 0, 'no fields before a method is chosen');
      await page.getByLabel('Payout method').selectOption('paypal');
      await clickAndLoad(page, page.getByRole('button', { name: 'Choose method' }));
      assert.equal(await page.getByLabel('PayPal e-mail address').count(), 1);
      assert.equal(await page.getByLabel('IBAN').count(), 0, 'PayPal shows its e-mail field only');
      await shot('settings-payout-paypal');
      await page.getByRole('button', { name: 'Save payout details' }).click();
      assert.match(
        (await page.locator('#field-payout_email-error').textContent()) ?? '',
        /Enter your e-mail/,
      );
      await assertAccessible(page, 'settings with payout errors');
      await shot('settings-payout-errors');
      await page.getByLabel('Payout method').selectOption('bank_transfer');
      await clickAndLoad(page, page.getByRole('button', { name: 'Change method' }));
      assert.equal(await page.getByLabel('PayPal e-mail address').count(), 0);
      assert.equal(await page.getByLabel('Note (when paid another way)').count(), 0);
      await page.getByLabel("Account holder's name").fill('Jane Doe');
      await page.getByLabel('IBAN').fill('de89 3704 0044 0532 0130 00');
      await page.getByLabel('SWIFT/BIC code').fill('COBADEFFXXX');
      await page.getByRole('button', { name: 'Save payout details' }).click();
      assert.match((await page.getByRole('status').textContent()) ?? '', /payout details are saved/);
      assert.equal(await page.getByLabel('IBAN').inputValue(), 'DE89 3704 0044 0532 0130 00');
      const stored = itemAt((await server().request('GET', '/v1/partners?limit=1', { token })).body.data);
      const withPayout = (await server().request('GET', `/v1/partners/${stored.id}`, { token })).body.data;
      assert.equal(withPayout.payout_method, 'bank_transfer');
      await shot('settings-payout');

      await page.getByRole('button', { name: 'Sign out' }).click();
      assert.match((await page.getByRole('status').textContent()) ?? '', /You are signed out/);
      await page.goto(`${portal}/dashboard`);
      assert.equal(await h1(page), 'Sign in to the Acme Tools partner portal');
      await page.getByLabel('E-mail address').fill('jane@example.com');
      await page.getByLabel('Password').fill('Wrong1234');
      await page.getByRole('button', { name: 'Sign in' }).click();
      assert.match((await page.getByRole('alert').textContent()) ?? '', /not right/);
      await assertAccessible(page, 'sign-in');
      await shot('sign-in-wrong');

      await page.getByRole('link', { name: 'Sign in with a link by e-mail instead' }).click();
      await page.getByLabel('E-mail address').fill('jane@example.com');
      await page.getByRole('button', { name: 'Send the link' }).click();
      await shot('link-sent');
      const mail = await lastMailTo(server().deps, smtp, 'jane@example.com');
      const link = /https?:\/\/[^\s"<]+\/link\/[A-Za-z0-9_-]{43}/.exec(mail)?.[0];
      assert.ok(link, 'the e-mail carries the link');
      await page.goto(link);
      await assertAccessible(page, 'use the link');
      await shot('link-use');
      await page.getByRole('button', { name: 'Sign in now' }).click();
      assert.equal(await h1(page), 'Welcome, Jane');
      // Opened again, the used link says so at once and offers a new one.
      await page.goto(link);
      assert.match((await page.getByRole('alert').textContent()) ?? '', /expired or was already used/);
      assert.equal(await page.getByRole('button', { name: 'Sign in now' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Send me a new link' }).count(), 1);
      await shot('link-used');

      await page.goto(`${portal}/forgot`);
      await assertAccessible(page, 'forgot');
      await shot('forgot');

      // A payout of the approved commission shows on the dashboard.
      const commissions = (await server().request('GET', '/v1/commissions', { token })).body.data;
      const approved = await server().request('POST', '/v1/commissions/approve', {
        token,
        body: { ids: commissions.map((c: { id: number }) => c.id) },
      });
      assert.equal(approved.status, 200, approved.text);
      const payout = await server().request('POST', '/v1/payouts', { token, body: {} });
      assert.equal(payout.status, 201, payout.text);
      // (After the e-mailed links: a paid payout sends the partner an e-mail too.)
      await page.goto(`${portal}/dashboard`);
      assert.match((await page.locator('#payouts-heading + div').textContent()) ?? '', /\$19\.80On its way/);
      const paid = await server().request('POST', `/v1/payouts/${payout.body.data.id}/mark-paid`, {
        token,
        body: {},
      });
      assert.equal(paid.status, 200, paid.text);
      await page.reload();
      assert.match((await page.locator('#payouts-heading + div').textContent()) ?? '', /\$19\.80Paid/);
      await assertAccessible(page, 'dashboard with payouts');
      await shot('dashboard-payouts');
      await context.close();
    });
    test('refer-a-friend customer portal: offer page → sign-in link by e-mail → link, friends, balance', {
      skip,
    }, async () => {
      const p = await server().newProgram('referral', {
        name: 'Bike Club',
        website: 'https://bikes.example',
      });
      const token = p.token;
      const create = (body: Record<string, unknown>) =>
        server().request('POST', '/v1/customers', { token, body });
      assert.equal((await create({ id: 'ann', email: 'ann@example.com', name: 'Ann' })).status, 201);
      for (const [id, name] of [
        ['bob', 'Bob Stone'],
        ['cat', 'Cat Miller'],
      ] as const)
        assert.equal(
          (await create({ id, email: `${id}@example.com`, name, referring_customer: { id: 'ann' } })).status,
          201,
        );
      const sale = await server().request('POST', '/v1/transactions', {
        token,
        body: { amount: 40, action: 'sale', customer: { id: 'bob' } },
      });
      assert.equal(sale.status, 200, sale.text);
      const context = await present(browser, 'the browser').newContext();
      const page = await context.newPage();
      const shot = (name: string) =>
        dialect === 'sqlite' ? screenshotBoth(page, `customer-${name}`) : Promise.resolve();
      await page.goto(`${server().url}/c/${p.publicId}`);
      assert.equal(await h1(page), 'Refer a friend to Bike Club');
      assert.match((await page.locator('main').textContent()) ?? '', /Give 10 USD, get 10 USD/);
      await assertAccessible(page, 'offer page');
      await shot('offer');
      await page.getByRole('link', { name: 'Get my referral link' }).click();
      await page.getByLabel('E-mail address').fill('ann@example.com');
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await shot('link-sent');
      const mail = await lastMailTo(server().deps, smtp, 'ann@example.com');
      const link = /https?:\/\/[^\s"<]+\/link\/[A-Za-z0-9_-]{43}/.exec(mail)?.[0];
      assert.ok(link, 'the e-mail carries the link');
      await page.goto(link);
      await page.getByRole('button', { name: 'Sign in now' }).click();
      assert.equal(await h1(page), 'Your referrals, Ann');
      const main = (await page.locator('main').textContent()) ?? '';
      assert.match(main, /Joined2/);
      assert.match(main, /Bought1/);
      assert.match(main, /B\. S\./);
      assert.match(main, /Balance in USD\$10\.00/);
      await assertAccessible(page, 'customer home');
      await shot('home');
      await page.getByRole('button', { name: 'Sign out' }).click();
      assert.match((await page.getByRole('status').first().textContent()) ?? '', /You are signed out/);
      await context.close();
    });
  },
  { env: { PAGES_RATE_LIMIT_PER_MINUTE: '0' } },
);
