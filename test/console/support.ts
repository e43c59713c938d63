// Browser-test support for the console: Debian's Chromium driven by playwright-core (no browser
// download). A missing Chromium fails the test with the install command; it never skips.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { scaled } from '../support/timeouts.js';

export const CHROMIUM = process.env.SAMSA_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `the console's browser tests need Chromium at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium (.ci/run installs it)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, timeout: scaled(60_000) });
}

/** A page that records every console error and uncaught exception of the app. */
export async function openPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  page.setDefaultTimeout(scaled(20_000));
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  // Every confirm() and prompt() of the console is answered "yes" (a prompt with its default
  // answer set by `expectPrompt`).
  return { page, errors };
}

/** When SAMSA_CONSOLE_SCREENSHOTS names a folder (docs/console), the tests save each page there. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SAMSA_CONSOLE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
