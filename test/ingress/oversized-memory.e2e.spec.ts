import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import type { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { loadOrCreateDevKeys, mintDevToken } from '../../src/adapters/http/auth/dev-keys.js';
import { allMigrations } from '../../src/migrations.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from '../support/databases.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MiB = 1024 * 1024;
/** What the attacker streams: far more than the service could hold without it showing in its peak memory. */
const ATTACK_BYTES = 512 * MiB;
/** Peak growth allowed: socket buffers and garbage chunks awaiting collection, not the body. */
const MAX_PEAK_GROWTH = 128 * MiB;

/** Kernel-reported memory of a process (Linux): resident now and the peak since the last reset. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * WH-1 in the service's own process, so its memory can be read off the kernel: a forged, chunked
 * body (no Content-Length to trust) hundreds of MiB long, against a source capped at 1 KiB.
 */
describe('WH-1 an oversized forged request is refused in bounded memory and stores nothing', () => {
  let sql: PgSqlClient;
  let schema: string;
  let child: ChildProcess;
  let baseUrl: string;
  let token: string;
  const canMeasure = process.platform === 'linux';

  beforeAll(async () => {
    ensureBuilt();
    ({ sql, schema } = await freshPostgres(allMigrations(), { max: 2 }));
    const dataDir = mkdtempSync(join(tmpdir(), 'reveille-oversized-'));
    const port = 4100 + Math.floor(Math.random() * 800);
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, REVEILLE_DB_SCHEMA: schema, REVEILLE_DATA_DIR: dataDir, REVEILLE_AUTH: 'dev', REVEILLE_BACKGROUND: 'on', EVENTSTORE_URL: '', PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'test' },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    token = await mintDevToken(await loadOrCreateDevKeys(dataDir), { tenant: 'acme', scope: 'missions:write sources:write triggers:write operator:read', subject: 'svc', ttlSeconds: 300, issuer: 'reveille-dev', audience: 'reveille' });
    const deadline = Date.now() + 60_000;
    while (!(await fetch(`${baseUrl}/health/ready`).then((r) => r.ok).catch(() => false))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const call = async (method: string, path: string, body: unknown) =>
      (await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: JSON.stringify(body) })).status;
    expect(await call('PUT', '/v1/missions/m-big', { state: 'active', grants: { maxExecutionsPerHour: 100, maxConcurrent: 10, resourceScopes: [], classification: 'internal', acceptLowerTrust: false, maxCausalDepth: 4 } })).toBe(200);
    expect(await call('PUT', '/v1/sources/s-big', { scheme: 'standard-webhooks', maxBodyBytes: 1024 })).toBe(200);
    expect(await call('POST', '/v1/sources/s-big/keys', {})).toBe(201);
    expect(await call('PUT', '/v1/triggers/t-big', { missionId: 'm-big', type: 'webhook', source: { sourceId: 's-big', eventTypes: [] } })).toBe(200);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sql?.close();
    if (schema) await dropSchema(schema);
  });

  it('WH-1 a 512 MiB chunked body against a 1 KiB cap: 413, peak memory grows by far less than the body, the connection is cut before the attacker is done, no row anywhere', async () => {
    if (!canMeasure) return expect(process.platform).not.toBe('linux');
    const pid = child.pid!;
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets the peak (VmHWM) to the current resident size
    const before = memoryOf(pid);
    const { answer, sent } = await streamForged(new URL(baseUrl), '/v1/ingress/s-big', ATTACK_BYTES);
    const after = memoryOf(pid);
    expect(after.peak - before.rss).toBeLessThan(MAX_PEAK_GROWTH);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
    expect(sent).toBeLessThan(ATTACK_BYTES); // the service cut the connection: the attacker never got to send it all
    for (const table of ['events', 'auth_replay']) {
      const rows = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'events' ? `type = 'OccurrenceObserved'` : 'true'}`);
      expect([table, rows.rows[0]!.n]).toEqual([table, 0]);
    }
  }, 120_000);
});

/**
 * An attacker's client over a raw socket: a signed-looking request with a chunked body of `bytes`,
 * written as fast as the connection takes it while the answer is read as it comes (fetch, by
 * contrast, may fail the whole request once the server stops reading, losing an answer it received).
 */
async function streamForged(base: URL, path: string, bytes: number): Promise<{ answer: string; sent: number }> {
  const socket = connect(Number(base.port), base.hostname);
  let answer = '';
  let open = true;
  socket.on('data', (data: Buffer) => (answer += data.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.once('close', () => (open = false));
  socket.on('error', () => undefined); // EPIPE/ECONNRESET once the service cuts the connection
  const timestamp = Math.floor(Date.now() / 1000);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${base.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
      `webhook-id: msg_big\r\nwebhook-timestamp: ${timestamp}\r\nwebhook-signature: v1,AAAA\r\n\r\n`,
  );
  const chunk = Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), Buffer.alloc(MiB, 0x7b), Buffer.from('\r\n')]);
  let sent = 0;
  while (open && sent < bytes) {
    const flushed = socket.write(chunk);
    sent += MiB;
    if (!flushed) await new Promise<void>((resolve) => (socket.once('drain', resolve), socket.once('close', resolve)));
  }
  if (open) socket.end('0\r\n\r\n');
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  socket.destroy();
  return { answer, sent };
}
