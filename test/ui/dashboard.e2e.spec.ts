import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { until } from '../executions/retries.shared.js';
import { type Browser, openBrowser, SCREENSHOTS } from './browser.js';
import { type DashboardData, dashboardData, HOSTILE } from './fixtures.js';

const PAGES = [
  '01-token',
  '02-health',
  '03-dead-letters',
  '04-trigger',
  '05-trigger-schedule',
  '06-occurrence',
  '07-executions',
  '08-execution',
  '09-audit',
  '10-audit-stream',
];

describe('OP-4 the operator dashboard in a real browser (headless Chromium, PostgreSQL)', () => {
  let t: TestApp;
  let browser: Browser;
  let token: string;
  let data: DashboardData;

  const api = async (url: string) => (await t.request({ method: 'GET', url })).body;
  const open = async (hash: string, selector: string) => {
    await browser.page.goto(`${t.baseUrl}/ui/${hash}`);
    await browser.page.waitForSelector(selector);
  };

  beforeAll(async () => {
    ensureBuilt();
    t = await startTestApp('postgres', { env: { REVEILLE_DELIVERY_POLL_MS: '100' } });
    // The service accepts tokens of at most 300 s (SEC-2); the browser part takes well under that.
    token = await t.token({ ttl: 300 });
    data = await dashboardData(t);
    browser = await openBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  afterEach(() => {
    // A script error or a Content-Security-Policy violation fails the page it happened on.
    expect(browser.errors.splice(0)).toEqual([]);
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
  });

  it('OP-4 a token that is not a JWT is refused in the page; a pasted token opens the Trigger health table (OP-1)', async () => {
    const { page } = browser;
    await page.fill('#token-input', 'not a token');
    await page.click('#token-save');
    await page.waitForSelector('#token-error:has-text("not a JWT")');
    await page.fill('#token-input', `Bearer ${token}`);
    await page.click('#token-save');
    const row = page.locator('#health-table tbody tr', { hasText: data.manualTrigger }).first();
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('degraded');
    await expect(row.textContent()).resolves.toContain('1 dead');
    await expect(row.locator('a', { hasText: 'Recover dead letters' }).count()).resolves.toBe(1);
    const schedule = page.locator('#health-table tbody tr', { hasText: data.scheduleTrigger });
    await expect(schedule.textContent()).resolves.toContain('schedule');
    expect(await page.evaluate('sessionStorage.getItem("reveille.token")')).toBe(token);
    await browser.screenshot('02-health');
  });

  it('OP-4 EX-4 the recovery action lists the dead letter; a recover click with a reason makes it pending (checked over the API)', async () => {
    const { page } = browser;
    await page
      .locator('#health-table tbody tr', { hasText: data.manualTrigger })
      .first()
      .locator('a', { hasText: 'Recover dead letters' })
      .click();
    const row = page.locator('#dead-letters-table tbody tr', { hasText: data.deadExecution });
    await row.waitFor();
    // The hostile error message is shown as the text it is.
    await expect(row.locator('.error-message').textContent()).resolves.toBe(HOSTILE);
    await browser.screenshot('03-dead-letters');
    // A reason is required: empty, the browser's own validation holds the form; blank, the page's.
    await row.locator('button', { hasText: 'Recover' }).click();
    await expect(row.locator('input[name="reason"]:invalid').count()).resolves.toBe(1);
    await row.locator('input[name="reason"]').fill('   ');
    await row.locator('button', { hasText: 'Recover' }).click();
    await row.locator('.form-status', { hasText: 'A reason is required' }).waitFor();
    expect((await api(`/v1/operator/executions/${data.deadExecution}`)).status).toBe('dead_lettered');
    await row.locator('input[name="reason"]').fill('downstream fixed <b>now</b>');
    await row.locator('button', { hasText: 'Recover' }).click();
    await row.locator('.form-status', { hasText: 'Done.' }).or(page.locator('p#dead-letters-table')).first().waitFor();
    const detail = await until(async () => {
      const answer = await api(`/v1/operator/executions/${data.deadExecution}`);
      return answer.status === 'pending' ? answer : undefined;
    }, 'the recovered execution to be pending');
    // The page redraws after the write with ?minPosition of it (read-your-writes): the dead letter is gone.
    await until(async () => {
      if ((await page.locator('#dead-letters-table tbody tr', { hasText: data.deadExecution }).count()) === 0)
        return true;
      await page.reload();
      await page.waitForSelector('#dead-letters-table');
      return false;
    }, 'the dead letter to leave the list');
    expect(detail.history.map((e: { type: string }) => e.type)).toContain('RecoveryRequested');
  });

  it('OP-1 Trigger detail: health, recovery and recent Occurrences; a schedule Trigger with its schedule and ranges', async () => {
    await open(`#/triggers/${data.manualTrigger}`, '#recent-occurrences');
    await expect(browser.page.locator('#recent-occurrences').textContent()).resolves.toContain(data.occurrenceId);
    await browser.screenshot('04-trigger');

    await open(`#/triggers/${data.scheduleTrigger}`, '#held-ranges');
    await expect(browser.page.locator('main').textContent()).resolves.toContain('interval@1');
    await expect(browser.page.locator('#skipped-ranges').count()).resolves.toBe(1);
    await browser.screenshot('05-trigger-schedule');
  });

  it('OP-2 Occurrence detail shows the evidence and links its execution and Trigger', async () => {
    await open(`#/occurrences/${data.occurrenceId}`, '#evidence');
    const main = browser.page.locator('main');
    await expect(main.textContent()).resolves.toContain('admitted');
    await expect(main.locator(`a[href="#/executions/${data.deadExecution}"]`).count()).resolves.toBe(1);
    await expect(main.locator(`a[href="#/triggers/${data.manualTrigger}"]`).count()).resolves.toBeGreaterThan(0);
    await browser.screenshot('06-occurrence');
  });

  it('EX-4 executions list and detail: status filter, history with the recovery', async () => {
    await open(`#/executions?triggerId=${data.manualTrigger}`, '#executions-table');
    await expect(browser.page.locator('#executions-table').textContent()).resolves.toContain(data.deadExecution);
    await browser.page.selectOption('#status-filter', 'dead_lettered');
    await browser.page.waitForFunction('location.hash.includes("status=dead_lettered")');
    await browser.page.waitForSelector('p#executions-table:has-text("No executions")');
    await browser.page.selectOption('#status-filter', '');
    await browser.page.waitForSelector('table#executions-table');
    await browser.screenshot('07-executions');

    await browser.page.click(`#executions-table a:has-text("${data.deadExecution}")`);
    await browser.page.waitForSelector('#execution-history');
    await expect(browser.page.locator('#execution-history').textContent()).resolves.toContain('RecoveryRequested');
    await browser.screenshot('08-execution');
  });

  it('AU-1 the audit log pages in global order, and a stream id opens that stream with its hash chain', async () => {
    await open('#/audit', '#audit-events');
    const first = browser.page.locator('#audit-events tbody tr').first();
    const streamId = (await first.locator('td').nth(1).textContent())!;
    await browser.screenshot('09-audit');
    await first.locator('a').click();
    await browser.page.waitForSelector('#stream-events');
    await expect(browser.page.locator('h1').textContent()).resolves.toBe(`Stream ${streamId}`);
    const stream = await api(`/v1/audit/streams/${streamId}`);
    await expect(browser.page.locator('#stream-events tbody tr').count()).resolves.toBe(stream.events.length);
    await browser.screenshot('10-audit-stream');
  });

  it('OP-4 hostile routes are data too: markup in an id, a prototype key as a page name', async () => {
    const hostileId = encodeURIComponent('<img src=x onerror="window.__pwned=3">');
    await open(`#/triggers/${hostileId}`, '.error');
    // The service refuses the id (400), and the page says so in text.
    await expect(browser.page.locator('main').textContent()).resolves.toContain('400');
    await open('#/constructor', '.error');
    await expect(browser.page.locator('main h1').textContent()).resolves.toBe('No such page');
    await open('#/__proto__/x', '.error');
    const refused = browser.errors.splice(0);
    expect(refused.every((e) => e.includes('status of 400'))).toBe(true);
  });

  it('OP-4 nothing an API value carried ran as markup, and every page left a screenshot', async () => {
    expect(await browser.page.evaluate('window.__pwned')).toBeUndefined();
    for (const name of PAGES) expect(existsSync(join(SCREENSHOTS, `${name}.png`))).toBe(true);
  });
});
