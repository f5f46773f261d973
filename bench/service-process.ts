import { type ChildProcess, spawn } from 'node:child_process';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateDevKeys, mintDevToken } from '../src/adapters/http/auth/dev-keys.js';

/** The compiled service beside this file (dist/bench → dist/src), or dist/ when run from the sources (tests). */
function serviceEntry(): string {
  const beside = join(import.meta.dirname, '..', 'src', 'main.js');
  return existsSync(beside) ? beside : join(import.meta.dirname, '..', 'dist', 'src', 'main.js');
}

export interface ServiceProcess {
  baseUrl: string;
  schema: string;
  databaseUrl: string;
  dataDir: string;
  /** The service's own processes: one, or the HTTP process then the background one when split. */
  pids: number[];
  token(scope?: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The real service in its own process (as `npx reveille serve` runs it), on PostgreSQL in a fresh
 * schema, so the load generator in this process does not share its event loop.
 */
export async function startService(
  port: number,
  env: Record<string, string> = {},
  shared?: { schema: string; dataDir: string },
): Promise<ServiceProcess> {
  const databaseUrl = env.DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = shared?.schema ?? `bench_${randomBytes(5).toString('hex')}`;
  const dataDir = shared?.dataDir ?? mkdtempSync(join(tmpdir(), 'reveille-bench-'));
  // BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the service under load.
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, serviceEntry(), 'serve'], {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      REVEILLE_AUTH: 'dev',
      DATABASE_URL: databaseUrl,
      REVEILLE_DB_SCHEMA: schema,
      REVEILLE_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', process.env.BENCH_SERVICE_LOG ? 'inherit' : 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${stderr}`);
    try {
      if ((await fetch(`${baseUrl}/health/ready`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 300) {
      child.kill('SIGKILL'); // no caller holds it yet: left running it would load the machine until this process exits
      throw new Error(`service did not become ready: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const keys = await loadOrCreateDevKeys(dataDir);
  return {
    baseUrl,
    schema,
    databaseUrl,
    token: (scope = 'missions:write sources:write triggers:write occurrences:write operator:read') =>
      mintDevToken(keys, {
        tenant: 'bench',
        scope,
        subject: 'bench',
        ttlSeconds: 300,
        issuer: 'reveille-dev',
        audience: 'reveille',
      }),
    dataDir,
    pids: [child.pid!],
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      if (shared) return;
      // Each run has its own schema: leave nothing behind (a bench run writes hundreds of MB).
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => admin.end());
    },
  };
}

/**
 * The service split by role, as README describes for ingress nodes: an HTTP-only process
 * (REVEILLE_BACKGROUND=off) answering on `port`, and a second process on the same schema running
 * admission, read models and schedules, so their folds never stall the HTTP event loop.
 */
export async function startSplitService(port: number, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const background = await startService(port + 1, { ...env, REVEILLE_BACKGROUND: 'on' });
  const http = await startService(
    port,
    { ...env, REVEILLE_BACKGROUND: 'off' },
    { schema: background.schema, dataDir: background.dataDir },
  );
  return {
    ...http,
    pids: [...http.pids, ...background.pids],
    async stop() {
      await http.stop();
      await background.stop();
    },
  };
}

let keyCounter = 0;

/** One authenticated JSON command against the service; throws on a non-2xx answer. */
export async function command(service: ServiceProcess, method: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await service.token()}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-${process.pid}-${++keyCounter}`,
    },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}
