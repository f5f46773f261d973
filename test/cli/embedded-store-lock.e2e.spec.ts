import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockPath } from '../../src/adapters/eventstore/sql/data-dir-lock.js';
import { projections } from '../../src/projections/index.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const MISSION = {
  expectedRevision: 0,
  state: 'active',
  grants: {
    maxExecutionsPerHour: 10,
    maxConcurrent: 1,
    resourceScopes: [],
    classification: 'internal',
    acceptLowerTrust: false,
    maxCausalDepth: 2,
  },
};

describe('one process per embedded store (api.md "CLI", OP-3, SEC-3)', () => {
  let serve: ServeProcess;

  const reveille = (...args: string[]) => {
    const result = spawnSync(process.execPath, ['bin/reveille.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...serve.env, PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  /** The same, without blocking: refusals may run side by side (each only reads the lock). */
  const reveilleAsync = (...args: string[]) =>
    new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['bin/reveille.js', ...args],
        { cwd: ROOT, env: { ...process.env, ...serve.env, PORT: '0' }, encoding: 'utf8', timeout: 60_000 },
        (_error, _stdout, stderr) => resolve({ status: child.exitCode, stderr }),
      );
    });

  beforeAll(async () => {
    serve = await startServe({ store: 'pglite', background: 'on', scope: 'missions:write operator:read' });
  }, 120_000);
  afterAll(() => serve?.close());

  it('refuses rebuild, migrate, scheduler, audit verify and a second serve while a server holds it; the data survives a clean restart', async () => {
    const put = await serve.call('PUT', '/v1/missions/m-kept', MISSION, { key: 'kept-1' });
    expect(put.status).toBe(200);
    const holder = JSON.parse(readFileSync(lockPath(serve.dataDir), 'utf8')) as { pid: number };
    expect(holder.pid).toBe(serve.child.pid);

    // The data-loss sequence: a rebuild beside the running server would open the same PGlite files
    const commands = [['projections', 'rebuild'], ['migrate'], ['scheduler', '--once'], ['serve'], ['audit', 'verify']];
    const answers = await Promise.all(commands.map((command) => reveilleAsync(...command)));
    // AU-2: audit verify checked nothing, which is exit 2; 1 would say "violations found"
    expect(answers.at(-1)!.status).toBe(2);
    for (const refused of answers) {
      expect(refused.status).not.toBeNull();
      expect(refused.status).not.toBe(0);
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain(`is in use by "reveille serve" (pid ${serve.child.pid}`);
      expect(refused.stderr).toContain('stop it first');
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }

    expect(await serve.stop()).toEqual({ code: 0, signal: null });
    expect(existsSync(lockPath(serve.dataDir))).toBe(false); // a clean exit removes the lock

    // Nobody holds it: the commands run, and leave it free
    const rebuilt = reveille('projections', 'rebuild');
    expect(rebuilt.stderr).not.toContain('in use');
    expect(rebuilt.status).toBe(0);
    // OP-3: the query-only indexes it dropped for the rebuild are built again before it exits.
    for (const index of projections.flatMap((p) => p.readIndexes ?? []))
      expect(rebuilt.stderr).toContain(`built index ${index}\n`);
    expect(existsSync(lockPath(serve.dataDir))).toBe(false);

    await serve.restart();
    const read = await serve.call('GET', '/v1/missions/m-kept');
    expect(read).toMatchObject({ status: 200, body: { missionId: 'm-kept', revision: 1, state: 'active' } });
    const replay = await serve.call('PUT', '/v1/missions/m-kept', MISSION, { key: 'kept-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual(put.body);
  }, 180_000);

  it('a lock left by a killed server is stale: the next process takes it over', async () => {
    await serve.kill();
    const stale = JSON.parse(readFileSync(lockPath(serve.dataDir), 'utf8')) as { pid: number };
    expect(stale.pid).not.toBe(process.pid);
    const migrated = reveille('migrate');
    expect(migrated.stderr).not.toContain('in use');
    expect(migrated.status).toBe(0);
    await serve.restart();
    expect((await serve.call('GET', '/v1/missions/m-kept')).status).toBe(200);
  }, 120_000);
});
