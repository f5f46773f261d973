import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrCreateDevKeys, mintDevToken } from '../../src/adapters/http/auth/dev-keys.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { expectOneLine } from '../support/cli-output.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const files = mkdtempSync(join(tmpdir(), 'reveille-apply-'));
// Ingress URLs are global: a source id of its own per run
const SOURCE = `gh-${randomUUID().slice(0, 8)}`;

const GRANTS = {
  maxExecutionsPerHour: 60,
  maxConcurrent: 2,
  resourceScopes: ['repo:acme/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};
const definitions = (manualEnabled = true) => ({
  missions: [{ missionId: 'm-1', state: 'active', grants: GRANTS, reason: 'from a file' }],
  sources: [{ sourceId: SOURCE, scheme: 'standard-webhooks' }],
  triggers: [
    { triggerId: 't-1', missionId: 'm-1', type: 'manual', enabled: manualEnabled },
    { triggerId: 't-2', missionId: 'm-1', type: 'webhook', source: { sourceId: SOURCE, eventTypes: ['push'] } },
  ],
});

function file(name: string, content: unknown): string {
  const path = join(files, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** The built CLI in its own process, on the server's data directory (its dev keys), PORT not the server's. */
function runApply(server: ServeProcess, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['bin/reveille.js', 'apply', ...args], {
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

describe('reveille apply -f FILE through the HTTP API of a running service (api.md "CLI"; SEC-3; unchanged appends nothing, TR-5)', () => {
  let server: ServeProcess;
  const apply = (args: string[], env: Record<string, string> = {}) => runApply(server, args, env);
  const lastPosition = async () => {
    const { body } = await server.call('GET', '/v1/audit/events?after=0&limit=500');
    return (body.events as Array<{ position: number }>).at(-1)?.position ?? 0;
  };
  const revisions = async () =>
    Promise.all(
      ['/v1/missions/m-1', `/v1/sources/${SOURCE}`, '/v1/triggers/t-1', '/v1/triggers/t-2'].map(
        async (path) => (await server.call('GET', path)).body.revision as number | undefined,
      ),
    );

  beforeAll(async () => {
    server = await startServe({
      background: 'on',
      scope: 'missions:write sources:write triggers:write operator:read audit:read',
    });
  }, 120_000);
  afterAll(async () => server?.close());

  it('--dry-run on an empty tenant prints the plan and writes nothing', async () => {
    const { status, stdout, stderr } = apply(['-f', file('defs.json', definitions()), '--dry-run', '--tenant', 'acme']);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(stdout).toBe(
      [
        'missions[0] (m-1): would create',
        `sources[0] (${SOURCE}): would create`,
        'triggers[0] (t-1): would create',
        'triggers[1] (t-2): would create',
        'dry run, nothing written: 4 to create, 0 to change, 0 unchanged',
        '',
      ].join('\n'),
    );
    expect(await lastPosition()).toBe(0);
    expect((await server.call('GET', '/v1/missions/m-1')).status).toBe(404);
  });

  it('the first apply creates missions, then sources, then triggers', async () => {
    const { status, stdout, stderr } = apply(['-f', file('defs.json', definitions()), '--tenant', 'acme']);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(stdout.split('\n')).toEqual([
      'missions[0] (m-1): created (revision 1)',
      `sources[0] (${SOURCE}): created (revision 1)`,
      'triggers[0] (t-1): created (revision 1)',
      'triggers[1] (t-2): created (revision 1)',
      '4 created, 0 changed, 0 unchanged',
      '',
    ]);
    expect(await revisions()).toEqual([1, 1, 1, 1]);
    expect((await server.call('GET', '/v1/triggers/t-2')).body.source).toEqual({
      sourceId: SOURCE,
      eventTypes: ['push'],
    });
  });

  it('a second apply says unchanged for every entry and writes nothing (idempotent)', async () => {
    const before = await lastPosition();
    const { status, stdout } = apply(['-f', file('defs.json', definitions()), '--tenant', 'acme']);
    expect(status).toBe(0);
    expect(stdout.split('\n')).toEqual([
      'missions[0] (m-1): unchanged (revision 1)',
      `sources[0] (${SOURCE}): unchanged (revision 1)`,
      'triggers[0] (t-1): unchanged (revision 1)',
      'triggers[1] (t-2): unchanged (revision 1)',
      '0 created, 0 changed, 4 unchanged',
      '',
    ]);
    expect(await lastPosition()).toBe(before);
    expect(await revisions()).toEqual([1, 1, 1, 1]);
  });

  it('--dry-run compares as the service does (defaults filled, constraints inherited): unchanged, and a change', async () => {
    const before = await lastPosition();
    const same = apply(['-f', file('defs.json', definitions()), '--dry-run', '--tenant', 'acme']);
    expect(same.stdout).toContain('dry run, nothing written: 0 to create, 0 to change, 4 unchanged');
    const changed = apply(['-f', file('changed.json', definitions(false)), '--dry-run', '--tenant', 'acme']);
    expect(changed.status).toBe(0);
    expect(changed.stdout).toContain('triggers[0] (t-1): would change\ntriggers[1] (t-2): unchanged\n');
    expect(await lastPosition()).toBe(before);
    expect(await revisions()).toEqual([1, 1, 1, 1]);
  });

  it('a changed trigger says changed, the rest unchanged', async () => {
    const { status, stdout } = apply(['-f', file('changed.json', definitions(false)), '--tenant', 'acme']);
    expect(status).toBe(0);
    expect(stdout).toContain('triggers[0] (t-1): changed (revision 2)\ntriggers[1] (t-2): unchanged (revision 1)\n');
    expect(stdout).toContain('0 created, 1 changed, 3 unchanged');
    expect(await revisions()).toEqual([1, 1, 2, 1]);
    expect((await server.call('GET', '/v1/triggers/t-1')).body.enabled).toBe(false);
  });

  it('a Trigger whose entry did not change follows its Mission’s new grants: changed once, then unchanged (no key of an earlier run replayed)', async () => {
    const grantsFile = (maxConcurrent: number, maxExecutionsPerHour: number) =>
      file(`grants-${maxConcurrent}.json`, {
        missions: [{ missionId: 'm-g', state: 'active', grants: { ...GRANTS, maxConcurrent, maxExecutionsPerHour } }],
        triggers: [{ triggerId: 't-g', missionId: 'm-g', type: 'manual' }],
      });
    const a = grantsFile(3, 60);
    const b = grantsFile(2, 10);
    expect(apply(['-f', a, '--tenant', 'acme']).stdout).toContain('2 created, 0 changed, 0 unchanged');
    expect(apply(['-f', a, '--tenant', 'acme']).stdout).toContain('0 created, 0 changed, 2 unchanged');
    expect(apply(['-f', b, '--tenant', 'acme', '--dry-run']).stdout).toContain(
      'missions[0] (m-g): would change\ntriggers[0] (t-g): would change\n',
    );
    const runB = apply(['-f', b, '--tenant', 'acme']);
    expect({ status: runB.status, stderr: runB.stderr }).toEqual({ status: 0, stderr: '' });
    expect(runB.stdout).toContain('missions[0] (m-g): changed (revision 2)\ntriggers[0] (t-g): changed (revision 2)\n');
    const trigger = (await server.call('GET', '/v1/triggers/t-g')).body;
    expect(trigger.constraints).toMatchObject({ maxConcurrent: 2, maxExecutionsPerHour: 10 });
    expect(apply(['-f', b, '--tenant', 'acme']).stdout).toContain(
      'missions[0] (m-g): unchanged (revision 2)\ntriggers[0] (t-g): unchanged (revision 2)\n',
    );
    expect(apply(['-f', b, '--tenant', 'acme', '--dry-run']).stdout).toContain(
      'dry run, nothing written: 0 to create, 0 to change, 2 unchanged',
    );
  });

  it('a refused write is one line naming the file entry, exit 1', async () => {
    const bad = definitions(false);
    bad.triggers.push({
      triggerId: 't-9',
      missionId: 'm-1',
      type: 'webhook',
      source: { sourceId: 'nope', eventTypes: ['push'] },
    });
    const { status, stdout, stderr } = apply(['-f', file('bad.json', bad), '--tenant', 'acme']);
    expect(status).toBe(1);
    expectOneLine(stderr);
    expect(stderr).toBe(
      'reveille apply: triggers[2] (t-9): 422 invalid_definition /source/sourceId: no source "nope" exists in this tenant\n',
    );
    expect(stdout).toContain('triggers[1] (t-2): unchanged');
    expect((await server.call('GET', '/v1/triggers/t-9')).status).toBe(404);
  });

  it.each([
    ['not JSON', '{"missions": [', /defs-\w+\.json is not JSON/],
    ['not an object', '[]', /must be an object \{ "missions"/],
    ['an unknown key', { mission: [] }, /unknown key "mission"/],
    ['a list that is no array', { triggers: {} }, /triggers must be an array/],
    ['an entry without its id', { missions: [{ state: 'active' }] }, /missions\[0\] needs a "missionId" string/],
    ['an expectedRevision', { triggers: [{ triggerId: 't-1', expectedRevision: 0 }] }, /expectedRevision is not part/],
    ['a secret', { sources: [{ sourceId: 's', scheme: 'unsigned', secret: 'x' }] }, /secrets never belong in a file/],
  ])('a file with %s is a usage error naming what is wrong (exit 2, nothing sent)', async (_, content, message) => {
    const before = await lastPosition();
    const { status, stderr } = apply([
      '-f',
      file(`defs-${randomUUID().slice(0, 6)}.json`, content),
      '--tenant',
      'acme',
    ]);
    expect(status).toBe(2);
    expectOneLine(stderr);
    expect(stderr).toMatch(message);
    expect(await lastPosition()).toBe(before);
  });

  it.each([
    [100_000, ''],
    [100_000, '--dry-run'],
    [70, ''],
    [70, '--dry-run'],
  ])(
    'an entry nested %i levels deep is refused when the file is read, naming the entry (%s; exit 2, nothing sent)',
    async (levels, dryRun) => {
      const before = await lastPosition();
      const deep = `{"missions":[{"missionId":"m-deep","x":${'['.repeat(levels)}${']'.repeat(levels)}}]}`;
      const { status, stdout, stderr } = apply(
        ['-f', file(`deep-${levels}.json`, deep), '--tenant', 'acme', dryRun].filter(Boolean),
      );
      expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
      expectOneLine(stderr);
      expect(stderr).toMatch(
        /^reveille apply: .*deep-\d+\.json: missions\[0\] \(m-deep\): \/x\/0\/.*JSON nesting deeper than 64 levels is not accepted \(see reveille apply --help\)\n$/,
      );
      expect(await lastPosition()).toBe(before);
    },
  );

  it('without -f, or without a token outside dev minting, is a usage error', () => {
    expect(apply(['--tenant', 'acme']).stderr).toContain('reveille apply: -f FILE is required');
    const production = apply(['-f', file('defs.json', definitions())], {
      REVEILLE_AUTH: 'jwks',
      REVEILLE_JWKS_FILE: file('jwks.json', { keys: [] }),
    });
    expect({ status: production.status, stdout: production.stdout }).toEqual({ status: 2, stdout: '' });
    expectOneLine(production.stderr);
    expect(production.stderr).toContain('reveille apply: set REVEILLE_TOKEN');
  });

  it('SEC-5 in development mode without REVEILLE_TOKEN or --tenant it mints the token itself, for tenant acme (api.md "CLI")', async () => {
    const missionId = `m-default-${randomUUID().slice(0, 8)}`;
    const missions = file('default-tenant.json', { missions: [{ ...definitions().missions[0], missionId }] });
    const { status, stdout, stderr } = apply(['-f', missions]);
    expect(status).toBe(0);
    expect(stdout).toContain(`missions[0] (${missionId}): created (revision 1)`);
    expect(stderr).toBe('reveille apply: development token for tenant acme (--tenant T for another)\n');
    // The server's own token is acme's: the Mission is there
    expect((await server.call('GET', `/v1/missions/${missionId}`)).status).toBe(200);
  });

  it('honours REVEILLE_TOKEN (its tenant) and --url over REVEILLE_URL; an unreachable service is one line, exit 1', async () => {
    const token = await mintDevToken(await loadOrCreateDevKeys(server.dataDir), {
      tenant: 'other',
      scope: 'missions:write sources:write triggers:write operator:read',
      subject: 'deployer',
      ttlSeconds: 300,
      issuer: 'reveille-dev',
      audience: 'reveille',
    });
    const missionsOnly = file('missions.json', { missions: definitions().missions });
    const viaUrl = apply(['-f', missionsOnly, '--url', server.baseUrl], {
      REVEILLE_TOKEN: token,
      REVEILLE_URL: 'http://127.0.0.1:1',
    });
    expect(viaUrl.stderr).toBe('');
    // m-1 of tenant "other" is new: the token's tenant, not acme's m-1
    expect(viaUrl.stdout).toContain('missions[0] (m-1): created (revision 1)');
    const both = apply(['-f', missionsOnly, '--tenant', 'acme'], { REVEILLE_TOKEN: token });
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--tenant mints a token; REVEILLE_TOKEN is set, its tenant applies');
    const unreachable = apply(['-f', missionsOnly], { REVEILLE_TOKEN: token, REVEILLE_URL: 'http://127.0.0.1:1' });
    expect(unreachable.status).toBe(1);
    expectOneLine(unreachable.stderr);
    expect(unreachable.stderr).toContain('reveille apply: no service answers at http://127.0.0.1:1');
  });

  it('a wrong base URL (a path where no service is) is one line saying no service was found there, not an error of the first entry; exit 1, nothing sent', async () => {
    const before = await lastPosition();
    const wrong = `${server.baseUrl}/wrong-path`;
    for (const dryRun of [[], ['--dry-run']]) {
      const { status, stdout, stderr } = apply([
        '-f',
        file('defs.json', definitions()),
        '--tenant',
        'acme',
        '--url',
        wrong,
        ...dryRun,
      ]);
      expect({ status, stdout }).toEqual({ status: 1, stdout: '' });
      expectOneLine(stderr);
      expect(stderr).toBe(
        `reveille apply: no Reveille service found at ${wrong} (GET ${wrong}/health/live answered 404); set --url or REVEILLE_URL to the service's base URL\n`,
      );
    }
    expect(await lastPosition()).toBe(before);
  });

  it('a definitions file over 16 MiB is refused before it is read, one line naming the file and the limit (exit 2, nothing sent); so is a longer pipe', async () => {
    const before = await lastPosition();
    const big = file('big.json', '{}');
    truncateSync(big, 16 * 1024 * 1024 + 1);
    const refused = apply(['-f', big, '--tenant', 'acme']);
    expect({ status: refused.status, stdout: refused.stdout }).toEqual({ status: 2, stdout: '' });
    expectOneLine(refused.stderr);
    expect(refused.stderr).toBe(
      `reveille apply: ${big} is larger than 16 MiB, the limit of a definitions file (see reveille apply --help)\n`,
    );
    // A pipe has no size: the bound holds while reading
    const piped = spawnSync(
      'sh',
      [
        '-c',
        `head -c ${17 * 1024 * 1024} /dev/zero | "${process.execPath}" bin/reveille.js apply -f /dev/stdin --tenant acme`,
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          REVEILLE_DATA_DIR: server.dataDir,
          REVEILLE_AUTH: 'dev',
          NODE_ENV: 'development',
          PORT: '1',
          REVEILLE_URL: server.baseUrl,
          REVEILLE_TOKEN: '',
        },
        encoding: 'utf8',
        timeout: 30_000,
      },
    );
    expect(piped.status).toBe(2);
    expect(piped.stderr).toBe(
      'reveille apply: /dev/stdin is larger than 16 MiB, the limit of a definitions file (see reveille apply --help)\n',
    );
    // At the limit it is read (and here refused as not being a definitions file, after reading)
    const atLimit = file('at-limit.json', '{}');
    truncateSync(atLimit, 16 * 1024 * 1024);
    expect(apply(['-f', atLimit, '--tenant', 'acme']).stderr).toMatch(/at-limit\.json is not JSON/);
    expect(await lastPosition()).toBe(before);
  });

  it('a token the service refuses is one line naming the entry and the status', () => {
    const { status, stderr } = apply(['-f', file('defs.json', definitions())], {
      REVEILLE_TOKEN: 'eyJhbGciOiJSUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.c2ln',
    });
    expect(status).toBe(1);
    expectOneLine(stderr);
    expect(stderr).toMatch(/^reveille apply: missions\[0\] \(m-1\): 401 /);
  });

  it('a long file shows progress on stderr, its lines stay on stdout', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({ triggerId: `p-${i}`, missionId: 'm-1', type: 'manual' }));
    const { status, stdout, stderr } = apply(['-f', file('many.json', { triggers: many }), '--tenant', 'acme']);
    expect(status).toBe(0);
    expect(stdout).toContain('25 created, 0 changed, 0 unchanged');
    expect(stderr).toContain(
      'apply: 10/25 definitions\napply: 20/25 definitions\napply: 25/25 definitions\napply: done\n',
    );
  });

  it('--help shows its usage', () => {
    const { status, stdout } = apply(['--help']);
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toBe('usage: reveille apply -f FILE [--url U] [--dry-run] [--tenant T]');
  });
});

describe('reveille apply re-run after the service crashed between a commit and its answer (SEC-3, embedded store)', () => {
  let server: ServeProcess;
  // apply's keys for triggers[0] (t-1), of any run: the service dies right after committing that write
  const crashKey = 'reveille-apply-triggers-0-';

  beforeAll(async () => {
    server = await startServe({
      background: 'on',
      scope: 'missions:write sources:write triggers:write operator:read',
      store: 'pglite',
      env: { REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT: crashKey },
    });
  }, 120_000);
  afterAll(async () => server?.close());

  it('the interrupted run fails in one line; the re-run finishes with exactly one revision each', async () => {
    const path = file('crash.json', definitions());
    const interrupted = runApply(server, ['-f', path, '--tenant', 'acme']);
    expect(interrupted.status).toBe(1);
    expectOneLine(interrupted.stderr);
    expect(interrupted.stderr).toMatch(/^reveille apply: no service answers at /);
    expect(interrupted.stdout).toContain(`sources[0] (${SOURCE}): created (revision 1)`);
    expect(interrupted.stdout).not.toContain('triggers[0]');
    // The re-run is a new run with keys of its own: the service must not die on it too
    delete server.env.REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT;
    await server.restart();
    const rerun = runApply(server, ['-f', path, '--tenant', 'acme']);
    expect(rerun.stderr).toBe('');
    expect(rerun.stdout.split('\n')).toEqual([
      'missions[0] (m-1): unchanged (revision 1)',
      `sources[0] (${SOURCE}): unchanged (revision 1)`,
      'triggers[0] (t-1): unchanged (revision 1)',
      'triggers[1] (t-2): created (revision 1)',
      '1 created, 0 changed, 3 unchanged',
      '',
    ]);
    const revisions = await server.call('GET', '/v1/triggers/t-1/revisions');
    expect(revisions.body.items).toHaveLength(1);
  });
});
