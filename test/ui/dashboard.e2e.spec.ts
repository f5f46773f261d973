import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { until } from '../executions/retries.shared.js';
import { type Browser, openBrowser, SCREENSHOTS } from './browser.js';

/** Data, never markup: if the dashboard rendered it as HTML, the handler would set the flag. */
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

describe('OP-4 the operator dashboard in a real browser (headless Chromium, PostgreSQL)', () => {
  let t: TestApp;
  let browser: Browser;
  let token: string;
  const suffix = Date.now().toString(36);
  const missionId = `m-ui-${suffix}`;
  const triggerId = `t-ui-${suffix}`;
  let deadExecution: string;

  const post = (url: string, body: unknown) => t.request({ method: 'POST', url, key: newKey(), body });
  const ui = (hash: string) => `${t.baseUrl}/ui/${hash}`;

  beforeAll(async () => {
    ensureBuilt();
    t = await startTestApp('postgres', { env: { REVEILLE_DELIVERY_POLL_MS: '100' } });
    // The service accepts tokens of at most 300 s (SEC-2); the browser part takes well under that.
    token = await t.token({ ttl: 300 });
    const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/v1/missions/${missionId}`,
          key: newKey(),
          body: { state: 'active', grants },
        })
      ).status,
    ).toBe(200);
    const trigger = await t.request({
      method: 'PUT',
      url: `/v1/triggers/${triggerId}`,
      key: newKey(),
      body: { expectedRevision: 0, missionId, type: 'manual', delivery: { maxAttempts: 1 }, reason: HOSTILE },
    });
    expect(trigger.status).toBe(200);
    // EX-4: one delivery allowed, a retryable failure: the execution is dead-lettered at once.
    const fired = await post(`/v1/triggers/${triggerId}/occurrences?wait=decision`, { input: { run: 1 } });
    expect([fired.status, fired.body.status]).toEqual([200, 'admitted']);
    deadExecution = fired.body.executionId;
    const claimed = await post(`/v1/executions/${deadExecution}/claim`, { consumerId: 'ui-worker' });
    expect(claimed.status).toBe(200);
    const failed = await post(`/v1/executions/${deadExecution}/complete`, {
      fence: claimed.body.fence,
      outcome: 'failed',
      retryable: true,
      error: { code: 'downstream', message: HOSTILE },
    });
    expect([failed.status, failed.body.status]).toEqual([200, 'dead_lettered']);
    // The app folds in the background (as served): wait until the operator views show the dead letter.
    await until(async () => {
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      return health.body.executions?.dead === 1;
    }, 'the dead letter in the Trigger health row');
    browser = await openBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('OP-4 /ui serves the built page without a token, under a Content-Security-Policy, and asks for a token', async () => {
    const plain = await t.request({ method: 'GET', url: '/ui/', token: null });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
    expect(plain.headers['content-security-policy']).toContain("script-src 'self'");
    expect(plain.headers['content-security-policy']).toContain("default-src 'none'");
    expect((await t.request({ method: 'GET', url: '/ui/app/main.js', token: null })).status).toBe(200);
    expect((await t.request({ method: 'GET', url: '/ui/../package.json', token: null })).status).not.toBe(200);

    const response = await browser.page.goto(`${t.baseUrl}/ui`);
    expect(response?.status()).toBe(200);
    expect(browser.page.url()).toBe(`${t.baseUrl}/ui/`);
    await browser.page.waitForSelector('#token-form');
    await browser.screenshot('01-token');
    expect(browser.errors).toEqual([]);
  });

  it('OP-4 a token that is not a JWT is refused in the page; a pasted token opens the Trigger health table (OP-1)', async () => {
    const { page } = browser;
    await page.fill('#token-input', 'not a token');
    await page.click('#token-save');
    await page.waitForSelector('#token-error:has-text("not a JWT")');
    await page.fill('#token-input', `Bearer ${token}`);
    await page.click('#token-save');
    const row = page.locator('#health-table tbody tr', { hasText: triggerId });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('degraded');
    await expect(row.textContent()).resolves.toContain('1 dead');
    await expect(row.locator('a', { hasText: 'Recover dead letters' }).count()).resolves.toBe(1);
    // Evaluated in the page (the browser's globals, not this process's).
    expect(await page.evaluate('sessionStorage.getItem("reveille.token")')).toBe(token);
    await browser.screenshot('02-health');
    expect(browser.errors).toEqual([]);
  });

  it('OP-4 EX-4 the recovery action lists the dead letter; a recover click with a reason makes it pending (checked over the API)', async () => {
    const { page } = browser;
    await page
      .locator('#health-table tbody tr', { hasText: triggerId })
      .locator('a', { hasText: 'Recover dead letters' })
      .click();
    const row = page.locator('#dead-letters-table tbody tr', { hasText: deadExecution });
    await row.waitFor();
    // The hostile error message is shown as the text it is.
    await expect(row.locator('.error-message').textContent()).resolves.toBe(HOSTILE);
    await browser.screenshot('03-dead-letters');
    await row.locator('input[name="reason"]').fill('downstream fixed <b>now</b>');
    await row.locator('button', { hasText: 'Recover' }).click();
    await page.waitForSelector(`#dead-letters-table >> text=${deadExecution}`, { state: 'detached' });
    const detail = await until(async () => {
      const answer = await t.request({ method: 'GET', url: `/v1/operator/executions/${deadExecution}` });
      return answer.body.status === 'pending' ? answer.body : undefined;
    }, 'the recovered execution to be pending');
    expect(detail.history.map((e: { type: string }) => e.type)).toContain('RecoveryRequested');
    expect(browser.errors).toEqual([]);
  });

  it('OP-4 nothing an API value carried ran as markup, and every page left a screenshot', async () => {
    expect(await browser.page.evaluate('window.__pwned')).toBeUndefined();
    for (const name of ['01-token', '02-health', '03-dead-letters'])
      expect(existsSync(join(SCREENSHOTS, `${name}.png`))).toBe(true);
  });
});
