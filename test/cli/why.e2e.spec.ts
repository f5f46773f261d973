import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServeProcess, startServe } from '../support/serve-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const GRANTS = {
  maxExecutionsPerHour: 60,
  maxConcurrent: 5,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};
const GUARD = {
  all: [
    { pointer: '/action', equals: 'opened' },
    { pointer: '/lines', lte: 500 },
  ],
};
const UNCHANGED = { id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' };

/** The built CLI in its own process, a client of the running service (api.md "CLI"). */
function runWhy(server: ServeProcess, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['bin/reveille.js', 'why', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      REVEILLE_DATA_DIR: server.dataDir,
      REVEILLE_AUTH: 'dev',
      NODE_ENV: 'development',
      PORT: '1',
      REVEILLE_URL: server.baseUrl,
      REVEILLE_TOKEN: '',
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('reveille why <occurrenceId> against a running service (OP-2, AD-3, BA-2, AD-4)', () => {
  let server: ServeProcess;
  /**
   * The service's call, once more if a kept-alive socket closed under it (a CLI run between two calls can
   * idle past the server's keep-alive timeout on a loaded machine); the same Idempotency-Key replays (SEC-3).
   */
  const call = async (method: string, path: string, body?: unknown) => {
    const key = `why-${randomUUID()}`;
    try {
      return await server.call(method, path, body, { key });
    } catch {
      return server.call(method, path, body, { key });
    }
  };
  const why = (args: string[], env: Record<string, string> = {}) => runWhy(server, [...args, '--tenant', 'acme'], env);

  /** A manual fire answered once decided, so the operator view already holds the decision. */
  async function fire(triggerId: string, input: unknown): Promise<string> {
    const fired = await call('POST', `/v1/triggers/${triggerId}/occurrences?wait=decision`, { input });
    expect([200, 202]).toContain(fired.status);
    const occurrenceId = fired.body.occurrenceId as string;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const view = await call('GET', `/v1/operator/occurrences/${occurrenceId}`);
      if (view.status === 200 && view.body.status !== 'observed') return occurrenceId;
      if (Date.now() > deadline) throw new Error(`occurrence ${occurrenceId} was not decided: ${JSON.stringify(view)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function trigger(triggerId: string, body: Record<string, unknown>) {
    const put = await call('PUT', `/v1/triggers/${triggerId}`, {
      expectedRevision: 0,
      missionId: 'm-why',
      type: 'manual',
      ...body,
    });
    expect(put.status).toBe(200);
  }

  beforeAll(async () => {
    server = await startServe({
      background: 'on',
      scope: 'missions:write triggers:write occurrences:write operator:read',
    });
    expect((await call('PUT', '/v1/missions/m-why', { state: 'active', grants: GRANTS })).status).toBe(200);
    await trigger('t-guard', { guard: GUARD });
    await trigger('t-unchanged', { prefilters: [UNCHANGED] });
    await trigger('t-budget', { constraints: { maxExecutionsPerHour: 1 } });
    await trigger('t-off', {});
    expect((await call('POST', '/v1/triggers/t-off/disable', { reason: 'why test' })).status).toBe(200);
  }, 120_000);
  afterAll(async () => server?.close());

  it('OP-2 admitted: names the execution it requested, exit 0', async () => {
    const occurrenceId = await fire('t-guard', { action: 'opened', lines: 3 });
    const { status, stdout, stderr } = why([occurrenceId]);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    const view = await call('GET', `/v1/operator/occurrences/${occurrenceId}`);
    expect(stdout.split('\n')[0]).toBe(`admitted: execution ${view.body.executionId} was requested`);
    expect(stdout).toContain(`occurrence ${occurrenceId}: manual, Trigger t-guard revision 1`);
    // Development mode mints the token itself without --tenant, for tenant acme (the one the service's is for)
    const minted = runWhy(server, [occurrenceId]);
    expect(minted).toEqual({
      status: 0,
      stdout,
      stderr: 'reveille why: development token for tenant acme (--tenant T for another)\n',
    });
  });

  it('BA-2 AD-3 suppressed guard_false: the clause, its literal from the bound revision, and the evidence', async () => {
    const occurrenceId = await fire('t-guard', { action: 'closed', lines: 3 });
    const { status, stdout } = why([occurrenceId]);
    expect(status).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('suppressed: guard_false — /action equals "opened" was false');
    expect(lines).toContain('  clause: /guard/all/0');
    expect(lines).toContain('  test: equals');
  });

  it('BA-2 AD-3 blocked guard_fault: what the clause found instead of a number', async () => {
    const occurrenceId = await fire('t-guard', { action: 'opened', lines: 'many' });
    const { status, stdout } = why([occurrenceId]);
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toBe(
      'blocked: guard_fault — /lines lte 500 could not be evaluated: not_a_number (found string)',
    );
  });

  it('AD-4 AD-3 suppressed unchanged: the resource, its digest and the baseline Occurrence', async () => {
    const first = await fire('t-unchanged', { resource: { id: 'r-1', etag: 'v1' } });
    const again = await fire('t-unchanged', { resource: { id: 'r-1', etag: 'v1' } });
    const { status, stdout } = why([again]);
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toBe(
      `suppressed: unchanged — filter unchanged@1: resource r-1 still has digest v1, as at its baseline (occurrence ${first})`,
    );
  });

  it('AD-2 AD-3 blocked trigger_disabled and budget_exhausted, in plain words', async () => {
    const off = await fire('t-off', {});
    expect(why([off]).stdout.split('\n')[0]).toBe(
      'blocked: trigger_disabled — Trigger t-off was disabled (revision 2) at admission',
    );
    await fire('t-budget', {});
    const spent = await fire('t-budget', {});
    expect(why([spent]).stdout.split('\n')[0]).toMatch(
      /^blocked: budget_exhausted — \d+ of 1 executions this hour were used \(window from \d{4}-\d\d-\d\dT\d\d:00:00\.000Z\)$/,
    );
  });

  it('OP-2 hostile: an unknown id exits 1 saying so; an over-long or malformed id exits 2 before any request', async () => {
    const unknown = why(['f'.repeat(64)]);
    expect(unknown).toMatchObject({ status: 1, stdout: '' });
    expect(unknown.stderr).toBe(`reveille why: no occurrence ${'f'.repeat(64)} in this tenant\n`);
    for (const bad of ['x'.repeat(129), '../../v1/audit/events', 'a b']) {
      const refused = why([bad]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/^reveille why: an occurrence id is 1–128 characters/);
    }
    expect(why([]).status).toBe(2);
    expect(why(['a', 'b']).status).toBe(2);
  });

  it('OP-2 --help describes the command and its exit codes; no service answering is exit 1', () => {
    const help = runWhy(server, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: reveille why OCCURRENCE_ID/);
    const nobody = why(['abc'], { REVEILLE_URL: 'http://127.0.0.1:1' });
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toMatch(/^reveille why: no service answers at http:\/\/127\.0\.0\.1:1/);
    // a wrong base path: the service answers 404 there too, which is not "no such occurrence"
    const wrong = `${server.baseUrl}/wrong-path`;
    const elsewhere = why(['abc'], { REVEILLE_URL: wrong });
    expect({ status: elsewhere.status, stdout: elsewhere.stdout }).toEqual({ status: 1, stdout: '' });
    expect(elsewhere.stderr).toBe(
      `reveille why: no Reveille service found at ${wrong} (GET ${wrong}/health/live answered 404); set --url or REVEILLE_URL to the service's base URL\n`,
    );
  });
});
