import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { present } from '../../src/core/present.ts';
import {
  assertAccessible,
  browserAvailable,
  clickAndLoad,
  launchBrowser,
  screenshotBoth,
} from '../browser.ts';
import { CONSOLE_PASSWORD, consoleUser } from '../console.ts';
import { describeEachDatabase } from '../harness.ts';
import { SVG_LOGO } from '../logos.ts';

/**
 * Branding in a real browser (issue 30): the owner uploads a logo with the Settings page's file
 * input and sets the brand colour and terms; the partner portal's sign-up then shows the logo, the
 * name and the colour, and its terms checkbox links to the terms. Screenshots of the settings page
 * and the branded sign-up at desktop and phone width go to test-results/screenshots/.
 */
const skip = !browserAvailable && !process.env.CI ? 'Chromium is not installed' : false;

describeEachDatabase('branding in a browser', (server, dialect) => {
  let browser: Browser | undefined;
  before(async () => {
    if (!skip) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  test('upload a logo and set the brand → the partner sign-up is branded and links the terms', {
    skip,
  }, async () => {
    const p = await server().newProgram('affiliate', { name: 'Acme Tools', website: 'https://acme.example' });
    await consoleUser(server(), 'owner@acme.example', { program: p, role: 'owner' });
    const page = await present(browser, 'the browser').newPage();
    const shot = (name: string) => (dialect === 'sqlite' ? screenshotBoth(page, name) : Promise.resolve());

    await page.goto(`${server().url}/admin/sign-in`);
    await page.getByLabel('Email').fill('owner@acme.example');
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${server().url}/admin/programs/${p.publicId}/settings`);

    await page.getByLabel('Brand colour').fill('#eab308');
    await page.getByRole('button', { name: 'Save settings' }).click();
    assert.match(
      (await page.locator('#setting-program_settings-brand_color-error').textContent()) ?? '',
      /contrast of at least 4\.5:1/,
    );
    await page.getByLabel('Brand colour').fill('#0f766e');
    await page.getByLabel('Terms URL').fill('https://acme.example/partner-terms');
    await clickAndLoad(page, page.getByRole('button', { name: 'Save settings' }));
    assert.match((await page.getByRole('status').textContent()) ?? '', /The settings were saved/);

    await page
      .getByLabel('Logo file')
      .setInputFiles({ name: 'acme-logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(SVG_LOGO) });
    await clickAndLoad(page, page.getByRole('button', { name: 'Upload logo' }));
    assert.match((await page.getByRole('status').textContent()) ?? '', /The settings were saved/);
    assert.equal(await page.getByAltText('The uploaded logo').isVisible(), true);
    await assertAccessible(page, 'settings');
    await page.locator('#logo-heading').scrollIntoViewIfNeeded();
    await shot('branding-settings');

    await page.goto(`${server().url}/p/${p.publicId}/sign-up`);
    const logo = page.locator('header.site img');
    assert.equal(
      await logo.evaluate((img) => (img as HTMLImageElement).naturalWidth > 0),
      true,
      'the logo loads',
    );
    assert.equal(await page.locator('header.site').textContent(), 'Acme Tools');
    const button = page.getByRole('button', { name: 'Create my partner account' });
    assert.equal(await button.evaluate((b) => getComputedStyle(b).backgroundColor), 'rgb(15, 118, 110)');
    const terms = page.getByRole('link', { name: 'terms of the Acme Tools partner program' });
    assert.equal(await terms.getAttribute('href'), 'https://acme.example/partner-terms');
    await assertAccessible(page, 'branded sign-up');
    await shot('branding-partner-sign-up');
  });
});
