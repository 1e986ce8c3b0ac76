// Headless Chromium for page tests: Debian's `chromium` driven by playwright-core (no browser
// download). Screenshots go to test-results/screenshots/, which the run keeps for review.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join('test-results', 'screenshots');

/** Whether this machine can run the browser tests (CI installs Chromium; `.ci/run`). */
export const browserAvailable = existsSync(CHROMIUM);

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without the background-networking flags Chromium keeps dialling out, which this machine refuses.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * Clicks a control that submits a form or follows a link and waits until the next document has
 * loaded. Checks that do not wait on their own (`isVisible`, `count`) would otherwise read the
 * page the click left, or pass on a status that page also showed.
 */
export async function clickAndLoad(page: Page, control: Locator): Promise<void> {
  await Promise.all([page.waitForEvent('load'), control.click()]);
}

/** Saves the page at desktop and phone widths as `<name>-desktop.png` and `<name>-phone.png`. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/** Every control a person can reach has a label, and the page has exactly one h1. */
export async function assertAccessible(page: Page, what: string) {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll('input, button, select, textarea')]
      .filter((el) => {
        const input = el as HTMLInputElement;
        if (input.type === 'hidden' || el.closest('[aria-hidden="true"]')) return false;
        if (el.tagName === 'BUTTON') return (el.textContent ?? '').trim() === '';
        return (input.labels?.length ?? 0) === 0 && !el.getAttribute('aria-label');
      })
      .map((el) => el.outerHTML),
  );
  assert.deepEqual(unlabelled, [], `${what}: controls without a label`);
  assert.equal(await page.locator('h1').count(), 1, `${what}: one h1`);
  assert.equal(await page.locator('html').getAttribute('lang'), 'en');
}
