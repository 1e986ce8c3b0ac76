import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { present } from '../../src/core/present.ts';
import { assertAccessible, browserAvailable, launchBrowser, screenshotBoth } from '../browser.ts';
import { describeEachDatabase } from '../harness.ts';

/**
 * The reader's loop in a real browser: a share page signs up a friend, whose signup shows in the
 * sharer's portal. Screenshots at desktop and phone width go to test-results/screenshots/ for review.
 * Under CI Chromium is always there (.ci/run installs it); elsewhere the test is skipped without it.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

describeEachDatabase('newsletter pages in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  before(async () => {
    if (!skip) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  test('share page → new subscriber → the count in the sharer’s portal', { skip }, async () => {
    const p = await server().newProgram('newsletter', { name: 'The Morning Note' });
    const token = p.token;
    const reward = (body: Record<string, unknown>) =>
      server().request('POST', '/v1/rewards', { token, body });
    assert.equal(
      (
        await reward({
          name: 'Sticker pack',
          description: 'Three stickers for your laptop',
          subscribers_count: 1,
          fulfillment_type: 'generic_coupon',
          fulfillment_value: 'STICKERS-2026',
        })
      ).status,
      201,
    );
    assert.equal((await reward({ name: 'Tote bag', subscribers_count: 3 })).status, 201);
    const created = await server().request('POST', '/v1/subscribers', {
      token,
      body: { email: 'ann@example.com', name: 'Ann Smith' },
    });
    assert.equal(created.status, 201, created.text);
    const ann = created.body.data;
    for (const [i, name] of ['Carla', 'Dev'].entries()) {
      const other = await server().request('POST', '/v1/subscribers', {
        token,
        body: { email: `leader${i}@example.com`, name },
      });
      for (let j = 0; j <= i + 1; j++)
        await server().request('POST', '/v1/subscribers', {
          token,
          body: { email: `f${i}${j}@example.com`, referral: { id: other.body.data.id } },
        });
    }

    const context = await present(browser, 'the browser').newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().url });
    const page = await context.newPage();
    const shot = (name: string) => (dialect === 'sqlite' ? screenshotBoth(page, name) : Promise.resolve());

    await page.goto(ann.share_link);
    assert.equal(await page.locator('h1').textContent(), 'Subscribe to The Morning Note');
    await shot('share-page');
    await assertAccessible(page, 'share page');
    // The keyboard reaches the skip link first, then the form.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.getByLabel('First name (optional)').fill('Bob');
    await page.getByLabel('E-mail address').fill('bob@example.com');
    await page.getByLabel(/Yes, send me/).check();
    await page.getByRole('button', { name: 'Subscribe' }).click();
    assert.equal(await page.locator('h1').textContent(), 'You are subscribed, Bob!');
    await shot('share-thanks');

    // The same e-mail again: the page says so, and no second subscriber exists.
    await page.goto(ann.share_link);
    await page.getByLabel('E-mail address').fill('BOB@example.com');
    await page.getByLabel(/Yes, send me/).check();
    await page.getByRole('button', { name: 'Subscribe' }).click();
    assert.match((await page.getByRole('alert').first().textContent()) ?? '', /already subscribed/);
    await shot('share-taken');
    await page.getByLabel('E-mail address').fill('not an address');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    assert.match((await page.locator('#field-email-error').textContent()) ?? '', /valid e-mail/);
    await shot('share-invalid');
    const bobs = await server().request('GET', '/v1/subscribers:search?email=bob@example.com', { token });
    assert.equal(bobs.body.data.length, 1);

    await page.goto(ann.portal_link);
    assert.equal(await page.locator('h1').textContent(), 'Your referrals');
    assert.equal(await page.locator('.stat').textContent(), '1');
    assert.match(
      (await page.locator('label[for=progress]').textContent()) ?? '',
      /2 more referrals to unlock Tote bag/,
    );
    assert.match((await page.locator('ul.rewards').first().textContent()) ?? '', /STICKERS-2026/);
    assert.equal(await page.getByLabel('Your share link').inputValue(), ann.share_link);
    const copy = page.getByRole('button', { name: 'Copy link' });
    assert.equal(await copy.isVisible(), true, 'the script shows the copy button');
    await copy.click();
    await page.getByText('Link copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), ann.share_link);
    assert.match(
      (await page.locator('ol.board').textContent()) ?? '',
      /Dev — 3 referrals.*Carla — 2 referrals.*Ann \(you\) — 1 referral/,
    );
    await shot('portal');
    await assertAccessible(page, 'portal');

    // Change the token's last character to one it is not, so the link is wrong for sure.
    const last = ann.portal_link.slice(-1) === '0' ? '1' : '0';
    const wrong = await page.goto(`${ann.portal_link.slice(0, -1)}${last}`);
    assert.equal(wrong?.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'Page not found');
    await shot('portal-not-found');
    await context.close();
  });
});
