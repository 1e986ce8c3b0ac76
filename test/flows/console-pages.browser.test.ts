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
import { commissionProgram, sell } from '../commission-factories.ts';
import { CONSOLE_PASSWORD, consoleUser } from '../console.ts';
import { describeEachDatabase, type TestServer } from '../harness.ts';

/**
 * The console's pages of customers, transactions, leads, coupons, subscribers, milestones,
 * rewards and commission rules in a real browser, for each program type: a refund above what is
 * left said next to its field, a lead converted, a coupon created; the fraud review with a flag
 * cleared, and the activity log it leaves. Screenshots of each page at
 * desktop and phone width go to test-results/screenshots/.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

async function api(server: TestServer, token: string, method: 'POST' | 'PUT', path: string, body: object) {
  const reply = await server.request(method, path, { token, body });
  assert.ok(reply.status < 300, reply.text);
  return reply;
}

describeEachDatabase('owner console pages in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  before(async () => {
    if (!skip) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  const h1 = (page: Page) => page.locator('h1').textContent();

  test('each program type’s pages, with a refund refused, a lead converted and a coupon created', {
    skip,
  }, async () => {
    const shop = await server().newProgram('affiliate');
    const friends = await server().newProgram('referral');
    const letters = await server().newProgram('newsletter');
    const s = server();
    await api(s, shop.token, 'POST', '/v1/partners', {
      email: 'pat@example.com',
      name: 'Pat Lee',
      key: 'pat',
    });
    await api(s, shop.token, 'POST', '/v1/customers', {
      key: 'buyer',
      email: 'buyer@example.com',
      name: 'Bea Buyer',
      partner: { key: 'pat' },
    });
    await api(s, shop.token, 'POST', '/v1/transactions', {
      key: 'order-1001',
      amount: 100,
      amount_units: 'USD',
      action: 'sale',
      customer: { key: 'buyer' },
    });
    await api(s, shop.token, 'POST', '/v1/leads', {
      name: 'Lena Lead',
      email: 'lena@example.com',
      partner: { key: 'pat' },
    });
    await api(s, friends.token, 'POST', '/v1/customers', { email: 'ref@example.com', name: 'Rae Referrer' });
    await api(s, letters.token, 'POST', '/v1/subscribers', { email: 'sub@example.com', name: 'Sam Sub' });
    await api(s, letters.token, 'POST', '/v1/rewards', { name: 'Sticker pack', subscribers_count: 3 });
    await consoleUser(s, 'operator@example.com');

    const page = await present(browser, 'the browser').newPage();
    const shot = async (name: string) => {
      await assertAccessible(page, name);
      if (dialect === 'sqlite') await screenshotBoth(page, `console-${name}`);
    };
    await page.goto(`${s.url}/admin/sign-in`);
    await page.getByLabel('Email').fill('operator@example.com');
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await h1(page), 'Programs');

    const at = (program: { publicId: string }, path: string) =>
      `${s.url}/admin/programs/${program.publicId}${path}`;
    await page.goto(at(shop, '/partners'));
    await page.getByRole('link', { name: 'Pat Lee' }).click();
    assert.equal(await h1(page), 'Pat Lee');
    await shot('partner');

    await page.getByRole('link', { name: 'Customers' }).click();
    assert.equal(await h1(page), 'Customers');
    await shot('customers');
    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByLabel('Search by transaction key or customer key').fill('buyer');
    await page.getByRole('button', { name: 'Search' }).click();
    await shot('transactions');
    await page.getByRole('link', { name: 'order-1001' }).click();
    await page.getByLabel('Amount to refund').fill('150');
    await page.getByRole('button', { name: 'Refund' }).click();
    assert.match((await page.locator('#field-amount-error').textContent()) ?? '', /100/);
    await shot('transaction-refused');
    await page.getByLabel('Amount to refund').fill('25');
    await page.getByRole('button', { name: 'Refund' }).click();
    assert.equal(await page.getByRole('status').textContent(), 'The refund was recorded.');

    await page.getByRole('link', { name: 'Leads' }).click();
    await shot('leads');
    await page.getByRole('link', { name: 'Lena Lead' }).click();
    await page.getByLabel('Amount of the sale').fill('80');
    await page.getByRole('button', { name: 'Convert' }).click();
    assert.match((await page.getByRole('status').textContent()) ?? '', /converted/);
    await shot('lead');

    await page.getByRole('link', { name: 'Coupons' }).click();
    await page.getByLabel('Name').fill('Spring sale');
    await page.getByLabel('Discount', { exact: true }).selectOption('percent');
    await page.getByLabel('Amount of the discount').fill('15');
    await page.getByLabel('Lasts').selectOption('once');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    assert.equal(await h1(page), 'Coupon Spring sale');
    await page.getByLabel('Code', { exact: true }).fill('SPRING15');
    await page.getByRole('button', { name: 'Add code' }).click();
    await shot('coupon');
    await page.getByRole('link', { name: 'All coupons' }).click();
    await shot('coupons');

    await page.goto(at(shop, '/settings/commissions'));
    await page.getByLabel('Second-tier commission').selectOption('percent');
    await page.getByLabel('Value').first().fill('5');
    await page.getByRole('button', { name: 'Save second tier' }).click();
    await page.getByLabel('Product id').fill('pro-plan');
    await page.getByLabel('Kind').selectOption('fixed');
    await page.getByLabel('Value').last().fill('12');
    await page.getByRole('button', { name: 'Add product commission' }).click();
    assert.equal(await page.getByRole('status').textContent(), 'The commissions were saved.');
    await shot('commission-rules');

    await page.goto(at(friends, '/rewards'));
    assert.equal(await h1(page), 'Rewards');
    await shot('rewards');
    await page.getByRole('link', { name: 'Customers' }).click();
    await shot('referral-customers');

    await page.goto(at(letters, '/subscribers'));
    assert.equal(await h1(page), 'Subscribers');
    await shot('subscribers');
    await page.getByRole('link', { name: 'Milestones' }).click();
    await shot('milestones');
  });

  test('the fraud review: open flags with their evidence, one cleared, and the activity it logs', {
    skip,
  }, async () => {
    const s = server();
    const { p } = await commissionProgram(s, {});
    // Customers of partner `pa` with disposable addresses: flagged under the default rules.
    for (const key of ['c-one', 'c-two']) {
      await api(s, p.token, 'POST', '/v1/customers', {
        key,
        email: `${key}@mailinator.com`,
        partner: { key: 'pa' },
      });
      await sell(s, p, key, `sale-${key}`, 100);
    }
    await consoleUser(s, 'reviewer@example.com');
    const page = await present(browser, 'the browser').newPage();
    const shot = async (name: string) => {
      await assertAccessible(page, name);
      if (dialect === 'sqlite') await screenshotBoth(page, `console-${name}`);
    };
    await page.goto(`${s.url}/admin/sign-in`);
    await page.getByLabel('Email').fill('reviewer@example.com');
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.goto(`${s.url}/admin/programs/${p.publicId}/review`);
    assert.equal(await h1(page), 'Review');
    assert.match((await page.locator('main').textContent()) ?? '', /mailinator\.com/);
    // The partner by its e-mail (it has no name), linked to its page.
    assert.equal(await page.getByRole('link', { name: 'pa@example.com' }).count(), 2);
    await shot('review');
    await clickAndLoad(page, page.getByRole('button', { name: 'Clear the flag on customer c-one' }));
    assert.ok(await page.getByRole('status').isVisible());
    await shot('review-cleared');

    await page.getByRole('link', { name: 'Activity' }).click();
    assert.equal(await h1(page), 'Activity');
    assert.match((await page.locator('main').textContent()) ?? '', /reviewer@example\.com/);
    await shot('activity');
  });

  test('the refer-a-friend review: the referring customer named and linked, a flag confirmed', {
    skip,
  }, async () => {
    const s = server();
    const friends = await s.newProgram('referral');
    await api(s, friends.token, 'POST', '/v1/customers', {
      id: 'rae',
      key: 'rae-key',
      email: 'rae@example.com',
      name: 'Rae Referrer',
    });
    // Friends with disposable addresses: flagged under the default rules, rewards held.
    for (const id of ['farm-one', 'farm-two'])
      await api(s, friends.token, 'POST', '/v1/customers', {
        id,
        key: id,
        email: `${id}@mailinator.com`,
        referring_customer: { id: 'rae' },
      });
    await consoleUser(s, 'friends@example.com');
    const page = await present(browser, 'the browser').newPage();
    const shot = async (name: string) => {
      await assertAccessible(page, name);
      if (dialect === 'sqlite') await screenshotBoth(page, `console-${name}`);
    };
    await page.goto(`${s.url}/admin/sign-in`);
    await page.getByLabel('Email').fill('friends@example.com');
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.goto(`${s.url}/admin/programs/${friends.publicId}`);
    await page.getByRole('link', { name: 'Review' }).click();
    assert.equal(await h1(page), 'Review');
    const main = (await page.locator('main').textContent()) ?? '';
    assert.match(main, /by referring customer rae-key/);
    assert.match(main, /stay pending and out of every balance/);
    assert.equal(await page.getByRole('button', { name: /archive the partner/ }).count(), 0);
    await shot('review-referral');
    await page.getByRole('button', { name: 'Confirm the flag on customer farm-two' }).click();
    assert.equal(
      await page.getByRole('status').textContent(),
      'The flag was confirmed: its rewards were voided.',
    );
    await shot('review-referral-confirmed');
    // The referrer's link finds it in the customers list.
    await page.getByRole('link', { name: 'rae-key' }).click();
    assert.equal(await h1(page), 'Customers');
    assert.match((await page.locator('main').textContent()) ?? '', /rae@example\.com/);
  });
});
