import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { SCOPES } from '../../src/adapters/http/auth/principal.js';
import { COMMANDS } from '../../src/adapters/cli/usage.js';
import { expectOneLine } from '../support/cli-output.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The CLI as a user runs it: its own process, nothing but argv and the environment. */
function reveille(args: string[], env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'reveille-cli-'));
  const result = spawnSync(process.execPath, ['bin/reveille.js', ...args], {
    cwd: ROOT,
    // An unreachable database: a command that meant to connect would fail, not hang or succeed quietly.
    env: { ...process.env, REVEILLE_DATA_DIR: dataDir, NODE_ENV: 'development', REVEILLE_AUTH: 'dev', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `reveille` without blocking the test's process, so several run at once. */
function reveilleAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reveille-cli-'));
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['bin/reveille.js', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, REVEILLE_DATA_DIR: dataDir, NODE_ENV: 'development', REVEILLE_AUTH: 'dev', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      },
      (_error, stdout, stderr) => resolve({ status: child.exitCode, stdout, stderr }),
    );
  });
}

describe('the CLI people trust (api.md "CLI", SEC-1, SEC-5)', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('with no command prints the usage and exits 2, starting no server', () => {
    const { status, stdout, stderr } = reveille([], { PORT: '1' });
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^usage: reveille <command>/);
    for (const command of ['serve', 'migrate', 'token', 'apply', 'projections rebuild', 'scheduler'])
      expect(stderr).toContain(`  ${command} `);
  });

  it('--version prints the package version', () => {
    expect(reveille(['--version'])).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it.each([
    ['serve', 'reveille serve'],
    ['migrate', 'reveille migrate'],
    ['token', 'reveille token --tenant T'],
    ['apply', 'reveille apply -f FILE'],
    ['projections rebuild', 'reveille projections rebuild [--name N]'],
    ['scheduler', 'reveille scheduler [--once]'],
    ['bench', 'reveille bench <name> [options]'],
  ])('%s --help prints its own usage and runs nothing', (command, usage) => {
    // serve would listen and migrate would connect: both exit 0 at once instead
    const { status, stdout } = reveille([...command.split(' '), '--help'], {
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      PORT: '0',
    });
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toContain(`usage: ${usage}`);
  });

  it('every command answers --help with exit 0 (api.md "CLI"), the groups audit and projections too, and `reveille help` is `reveille --help`', async () => {
    const names = COMMANDS.map((c) => c.name);
    // api.md's list: a command it names that the CLI lost would go unchecked below
    for (const listed of ['serve', 'migrate', 'token', 'apply', 'audit verify', 'projections rebuild', 'bench'])
      expect(names).toContain(listed);
    const groups = [...new Set(names.filter((n) => n.includes(' ')).map((n) => n.split(' ')[0]!))];
    expect(groups).toEqual(expect.arrayContaining(['audit', 'projections']));
    const env = { DATABASE_URL: 'postgres://127.0.0.1:1/none', PORT: '0' };
    // One process per form (≈ 1 s each on a slow VM), four at a time
    const runs = [
      ...names.map((name) => [...name.split(' '), '--help']),
      ['help', 'audit', 'verify'],
      ...groups.flatMap((group) => [[group, '--help'], ['help', group], [group]]),
      ['--help'],
      ['help'],
    ];
    const answers = new Map<string, Awaited<ReturnType<typeof reveilleAsync>>>();
    for (let i = 0; i < runs.length; i += 4)
      await Promise.all(
        runs.slice(i, i + 4).map(async (args) => answers.set(args.join(' '), await reveilleAsync(args, env))),
      );
    const answer = (...args: string[]) => answers.get(args.join(' '))!;
    for (const name of names) {
      const help = answer(...name.split(' '), '--help');
      expect({ name, status: help.status, stderr: help.stderr }).toEqual({ name, status: 0, stderr: '' });
      expect(help.stdout.split('\n')[0]).toMatch(new RegExp(`^usage: reveille ${name}\\b`));
    }
    expect(answer('help', 'audit', 'verify')).toEqual(answer('audit', 'verify', '--help'));
    for (const group of groups) {
      const help = answer(group, '--help');
      expect({ group, status: help.status, stderr: help.stderr }).toEqual({ group, status: 0, stderr: '' });
      expect(help.stdout.split('\n')[0]).toBe(`usage: reveille ${group} <subcommand> [options]`);
      for (const sub of names.filter((n) => n.startsWith(`${group} `))) expect(help.stdout).toContain(`  ${sub}  `);
      expect(answer('help', group)).toEqual(help);
      // Without --help a group still names its subcommands and exits 2: it runs nothing
      expect(answer(group).status).toBe(2);
    }
    const overview = answer('--help');
    expect(overview.status).toBe(0);
    expect(overview.stdout).toMatch(/^usage: reveille <command>/);
    expect(answer('help')).toEqual(overview);
  });

  it('bench hands its arguments to the benchmarks (api.md lists it): an unknown one is named, the known ones listed', () => {
    // Only the refusal is run here: benchmarks belong in `npm run bench`, never in tests.
    const unknown = reveille(['bench', 'nosuch', '--seconds', '1'], { DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(unknown.status).toBe(2);
    expectOneLine(unknown.stderr);
    expect(unknown.stderr).toContain('reveille bench: unknown bench "nosuch"; benches: append, audit, chaos, deliver');
    for (const name of ['manual', 'deliver', 'audit']) expect(unknown.stderr).toContain(name);
    const none = reveille(['bench']);
    expect(none.status).toBe(2);
    expectOneLine(none.stderr);
    expect(none.stderr).toBe(
      'reveille bench: which benchmark? benches: append, audit, chaos, deliver, ingress, manual, poll, schedules, suppress (see reveille bench --help)\n',
    );
  });

  // Each case starts a process that loads every benchmark (≈ 4 s on a slow VM): the rules themselves are
  // test/cli/bench-args.unit.spec.ts; these show a benchmark's own options are checked before anything starts.
  it.each([
    [['manual', '--seconds', 'abc'], 'manual: --seconds needs a number of at least 1, not "abc"'],
    [['poll', '--every', '0'], 'poll: --every needs a whole number of at least 1, not "0"'],
    [['deliver', '--modes', 'push'], 'deliver: --modes takes pull,redis, not "push"'],
  ])('bench %j is refused in one line before anything starts, exit 2', (args, message) => {
    // An unreachable database: a benchmark that started anyway would fail differently (or run)
    const run = reveille(['bench', ...args], { DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    expect(run.stdout).toBe('');
    expectOneLine(run.stderr);
    expect(run.stderr).toBe(`reveille bench: ${message} (see reveille bench --help)\n`);
    expect(run.status).toBe(2);
  });

  it('token refuses a data directory it cannot use in one line, exit 2, at once (a file, below a file, procfs)', () => {
    const base = mkdtempSync(join(tmpdir(), 'reveille-cli-'));
    const aFile = join(base, 'a-file');
    writeFileSync(aFile, 'x');
    for (const [dataDir, why] of [
      [aFile, `${aFile} is not a directory`],
      [join(aFile, 'below'), `a part of ${join(aFile, 'below')} is a file`],
      ['/proc/nope', 'cannot create /proc/nope (ENOENT)'],
    ] as const) {
      const started = Date.now();
      const run = reveille(['token', '--tenant', 'acme'], { REVEILLE_DATA_DIR: dataDir });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect({ status: run.status, stdout: run.stdout }).toEqual({ status: 2, stdout: '' });
      expectOneLine(run.stderr);
      expect(run.stderr).toBe(`reveille token: REVEILLE_DATA_DIR=${dataDir} cannot be used: ${why}\n`);
    }
  });

  it('a single-valued option given twice is refused in one line, exit 2 (never "the last one wins")', () => {
    const twice = reveille(['token', '--tenant', 'a', '--tenant', 'b']);
    expect({ status: twice.status, stdout: twice.stdout }).toEqual({ status: 2, stdout: '' });
    expectOneLine(twice.stderr);
    expect(twice.stderr).toBe(
      'reveille token: --tenant is given more than once; it takes one value (see reveille token --help)\n',
    );
    const file = reveille(['apply', '-f', 'a.json', '--file=b.json']);
    expect(file.status).toBe(2);
    expect(file.stderr).toContain('reveille apply: --file is given more than once');
  });

  it('refuses an unknown command or option with one line and exit code 2', () => {
    const unknownCommand = reveille(['frobnicate']);
    expect(unknownCommand.status).toBe(2);
    expectOneLine(unknownCommand.stderr);
    expect(unknownCommand.stderr).toMatch(/unknown command "frobnicate"; commands: serve, migrate/);
    const unknownOption = reveille(['token', '--tenat', 'acme']);
    expect(unknownOption.status).toBe(2);
    expectOneLine(unknownOption.stderr);
    expect(unknownOption.stderr).toContain('reveille token: unknown option --tenat');
  });

  it('a bad configuration variable is one line naming it, exit code 2', () => {
    const { status, stderr } = reveille(['migrate'], { REVEILLE_AUTH: 'bogus' });
    expect(status).toBe(2);
    expectOneLine(stderr);
    expect(stderr).toContain('REVEILLE_AUTH must be "jwks" or "dev", not "bogus"');
  });

  it('token requires --tenant', () => {
    const { status, stdout, stderr } = reveille(['token', '--scope', 'operator:read']);
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expectOneLine(stderr);
    expect(stderr).toContain('--tenant is required');
  });

  it('token refuses an unknown scope and lists the ones the auth guard knows (SEC-2)', () => {
    const { status, stderr } = reveille(['token', '--tenant', 'acme', '--scope', 'missions:write missions:admin']);
    expect(status).toBe(2);
    expectOneLine(stderr);
    expect(stderr).toContain('unknown scope "missions:admin"');
    for (const scope of SCOPES) expect(stderr).toContain(scope);
  });

  it('token --ttl 3600 is refused in one line naming the 300 s limit the service enforces (SEC-1), 300 mints', () => {
    const long = reveille(['token', '--tenant', 'acme', '--ttl', '3600']);
    expect(long.status).toBe(2);
    expectOneLine(long.stderr);
    expect(long.stderr).toMatch(/--ttl is whole seconds from 1 to 300, not "3600".*SEC-1/);
    expect(reveille(['token', '--tenant', 'acme', '--ttl', 'soon']).status).toBe(2);

    const minted = reveille(['token', '--tenant', 'acme', '--scope', 'operator:read', '--ttl', '300']);
    expect(minted.status).toBe(0);
    const claims = decodeJwt(minted.stdout.trim());
    expect(claims).toMatchObject({ tenant: 'acme', scope: 'operator:read', sub: 'dev-cli' });
    expect(claims.exp! - claims.iat!).toBe(300);
  });
});
