import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { expectOneLine } from '../support/cli-output.js';
import { missionGrants } from '../support/grants.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const MISSION = { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 4 }) };

/** api.md "CLI": `projections rebuild [--name N]` beside a service running on the same PostgreSQL schema. */
describe('reveille projections rebuild while a service runs on the schema (PostgreSQL)', () => {
  let serve: ServeProcess;

  const reveille = (...args: string[]) => {
    const result = spawnSync(process.execPath, ['bin/reveille.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...serve.env, PORT: '0' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  beforeAll(async () => {
    serve = await startServe({ background: 'thread', scope: 'missions:write triggers:write occurrences:write' });
    // Something for the service's runners to fold while a rebuild would reset their checkpoints
    expect((await serve.call('PUT', '/v1/missions/m-1', MISSION)).status).toBe(200);
    expect((await serve.call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
    for (let i = 0; i < 20; i++)
      expect((await serve.call('POST', '/v1/triggers/t-1/occurrences', { input: { i } })).status).toBe(202);
  }, 180_000);
  afterAll(async () => serve?.close());

  const checkpoints = async () =>
    (await serve.sql.query<{ name: string; position: string }>('SELECT name, position FROM checkpoints ORDER BY name'))
      .rows;
  /** The checkpoints once the service stopped moving them (its admission and folds of the fires above). */
  const settled = async () => {
    let last = JSON.stringify(await checkpoints());
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const now = JSON.stringify(await checkpoints());
      if (now === last) return JSON.parse(now) as Array<{ name: string; position: string }>;
      last = now;
    }
    throw new Error('the service kept folding');
  };

  it.each([[[]], [['--name', 'executions']]])(
    'refuses in one line naming the schema, exit 1, and leaves the read models alone (%j)',
    async (name) => {
      const before = await settled();
      const run = reveille('projections', 'rebuild', ...name);
      expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 1, stdout: '' });
      expectOneLine(run.stderr);
      expect(run.stderr).toBe(
        `reveille projections rebuild: a service is running on schema ${serve.schema} (it listens for its definition changes); its projection runners advance the checkpoints a rebuild resets, so stop it first\n`,
      );
      expect(await checkpoints()).toEqual(before);
      expect((await fetch(`${serve.baseUrl}/health/ready`)).status).toBe(200);
    },
  );

  it('once the service stopped, the rebuild runs', async () => {
    expect((await serve.stop()).code).toBe(0);
    const run = reveille('projections', 'rebuild');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^rebuilt \d+ projection\(s\) from position 0\n$/);
  });
});
