import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { loadOrCreateDevKeys, mintDevToken } from '../../src/adapters/http/auth/dev-keys.js';
import { allMigrations } from '../../src/migrations.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const GRANTS = { maxExecutionsPerHour: 100, maxConcurrent: 10, resourceScopes: [], classification: 'internal', acceptLowerTrust: false, maxCausalDepth: 4 };

/** `reveille serve` as an operator starts it on PostgreSQL: admission and read models in a worker thread. */
describe('REVEILLE_BACKGROUND=thread: one process, background work on its own event loop', () => {
  let sql: PgSqlClient;
  let schema: string;
  let child: ChildProcess;
  let stderr = '';
  let baseUrl: string;
  let token: string;

  beforeAll(async () => {
    ensureBuilt();
    ({ sql, schema } = await freshPostgres(allMigrations(), { max: 2 }));
    const dataDir = mkdtempSync(join(tmpdir(), 'reveille-thread-'));
    const port = 4100 + Math.floor(Math.random() * 800);
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REVEILLE_DB_SCHEMA: schema, REVEILLE_DATA_DIR: dataDir, REVEILLE_AUTH: 'dev', REVEILLE_BACKGROUND: 'thread', EVENTSTORE_URL: '', PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'test' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    token = await mintDevToken(await loadOrCreateDevKeys(dataDir), { tenant: 'acme', scope: 'missions:write triggers:write occurrences:write operator:read', subject: 'svc', ttlSeconds: 300, issuer: 'reveille-dev', audience: 'reveille' });
    await until(async () => (await readiness())?.status === 'ok', 60_000);
  }, 180_000);
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  async function readiness(): Promise<{ status: string; details: { subscriptions: { running?: string[]; failing?: unknown } } } | null> {
    try {
      return (await (await fetch(`${baseUrl}/health/ready`)).json()) as never;
    } catch {
      return null;
    }
  }

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  it('OP-4 readiness lists the background tasks under the thread that runs them, none on the HTTP loop', async () => {
    const running = (await readiness())!.details.subscriptions.running!;
    expect(running).toEqual(expect.arrayContaining(['background-thread/processor:admission', 'background-thread/projection:occurrences', 'background-thread/scheduler:materializer']));
    expect(running.filter((name) => !name.startsWith('background-thread/'))).toEqual([]);
  });

  it('AD-1 OP-2 an Occurrence appended by the HTTP thread is decided and folded by the background thread', async () => {
    expect((await call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
    expect((await call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
    const fired = await call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: { n: 1 } });
    expect(fired.status).toBe(200);
    expect(fired.body).toMatchObject({ status: 'admitted', reason: null });
    const shown = await call('GET', `/v1/operator/occurrences/${fired.body.occurrenceId}?minPosition=${fired.body.position}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ occurrenceId: fired.body.occurrenceId, status: 'admitted', executionId: fired.body.executionId });
    const health = await call('GET', `/v1/operator/triggers/t-1?minPosition=${fired.body.position}`);
    expect(health.body).toMatchObject({ counts: { observed: 1, admitted: 1 } });
  });

  it('stops with the process on SIGTERM, the thread first, without a crash report', async () => {
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    expect(stderr).not.toMatch(/background thread: |exited with code/);
  }, 30_000);
});

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
