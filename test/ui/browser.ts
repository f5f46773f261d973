import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium package; CI installs it (.ci/run). Never a downloaded browser build. */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output', 'ui');

export interface Browser {
  page: Page;
  /** Uncaught page errors and console errors (a CSP violation is one): a clean run has none. */
  errors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile; fails loudly (never skips) when the browser is not installed. */
export async function openBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: the dashboard test needs Debian's chromium (apt-get install -y chromium; .ci/run installs it)`,
    );
  const profile = mkdtempSync(join(tmpdir(), 'reveille-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    errors,
    screenshot: async (name) => {
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
