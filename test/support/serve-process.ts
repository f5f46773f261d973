import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { loadOrCreateDevKeys, mintDevToken } from '../../src/adapters/http/auth/dev-keys.js';
import { allMigrations } from '../../src/app.module.js';
import { dropSchema, freshPostgres, TEST_DATABASE_URL } from './databases.js';
import { freePort } from './free-port.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * `reveille serve` from the build, in its own process, with a dev token: on PostgreSQL in a fresh schema,
 * or (`store: 'pglite'`) on the embedded store in its data directory.
 */
export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  /** PostgreSQL only: nothing else may open the embedded store while the server holds it. */
  sql: PgSqlClient;
  /** What a second process needs to share this one's database and dev keys (`joining`). */
  schema: string;
  dataDir: string;
  /** What `serve` is run with, for other `reveille` commands on the same store. */
  env: Record<string, string>;
  stderr(): string;
  /** The service's log lines (Nest writes info and debug to stdout, errors to stderr). */
  stdout(): string;
  /** The /health/ready answers seen while waiting for readiness (the latest start's). */
  readiness: Array<{ status: number; body: any }>;
  /** A JSON command with the token and an idempotency key (a fresh one unless given). */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: { key?: string },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** SIGKILL: a crash, nothing shut down gracefully. */
  kill(): Promise<void>;
  /** SIGTERM: a clean stop; resolves with how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** A new process on the same schema, data directory and port, once it is ready (the old one is SIGKILLed). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startServe(options: {
  background: 'on' | 'thread';
  scope: string;
  tenant?: string;
  env?: Record<string, string>;
  /** Readiness with a degraded part (e.g. the wakeup transport) still counts. */
  degradedIsReady?: boolean;
  /** Another process on that one's schema and dev keys; closing it leaves the schema to the first. */
  joining?: ServeProcess;
  store?: 'postgres' | 'pglite';
}): Promise<ServeProcess> {
  ensureBuilt();
  const embedded = options.store === 'pglite';
  const postgres = embedded
    ? null
    : options.joining
      ? {
          sql: await PgSqlClient.connect({
            connectionString: TEST_DATABASE_URL,
            schema: options.joining.schema,
            max: 2,
          }),
          schema: options.joining.schema,
        }
      : await freshPostgres(allMigrations(), { max: 2 });
  const schema = postgres?.schema ?? '';
  const dataDir = options.joining?.dataDir ?? mkdtempSync(join(tmpdir(), 'reveille-serve-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATABASE_URL: postgres ? TEST_DATABASE_URL : '',
    REVEILLE_DB_SCHEMA: schema,
    REVEILLE_DATA_DIR: dataDir,
    REVEILLE_AUTH: 'dev',
    REVEILLE_BACKGROUND: options.background,
    EVENTSTORE_URL: '',
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'test',
    ...options.env,
  };
  const spawnServe = () =>
    spawn(process.execPath, [join(ROOT, 'dist', 'src', 'main.js'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  let stderr = '';
  let stdout = '';
  let child = spawnServe();
  const listen = () => {
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  };
  listen();
  const token = await mintDevToken(await loadOrCreateDevKeys(dataDir), {
    tenant: options.tenant ?? 'acme',
    scope: options.scope,
    subject: 'svc',
    ttlSeconds: 300,
    issuer: 'reveille-dev',
    audience: 'reveille',
  });
  let readiness: Array<{ status: number; body: any }> = [];
  const ready = async () => {
    const response = await fetch(`${baseUrl}/health/ready`);
    const body = (await response.json()) as { status?: string };
    readiness.push({ status: response.status, body });
    const status = body.status;
    return response.ok && (status === 'ok' || (options.degradedIsReady === true && status === 'degraded'));
  };
  const untilReady = async () => {
    readiness = [];
    const deadline = Date.now() + 60_000;
    while (!(await ready().catch(() => false))) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`the service did not become ready: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await untilReady();
  } catch (error) {
    // No handle reaches the test, so nothing else would stop it: a service left running loads the machine and
    // holds its connections until the jest worker exits, and the next suites' waits time out in turn.
    await kill();
    if (postgres) {
      await postgres.sql.close();
      if (!options.joining) await dropSchema(postgres.schema);
    }
    throw error;
  }
  return {
    get child() {
      return child;
    },
    baseUrl,
    get sql(): PgSqlClient {
      if (!postgres) throw new Error('the embedded store is the server process’s alone');
      return postgres.sql;
    },
    schema,
    dataDir,
    env,
    stderr: () => stderr,
    stdout: () => stdout,
    get readiness() {
      return readiness;
    },
    async call(method, path, body, callOptions = {}) {
      const key = callOptions.key ?? randomUUID();
      const send = () =>
        fetch(`${baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      let response: Response;
      try {
        response = await send();
      } catch (error) {
        // A spawnSync CLI run blocks this event loop past the server's keep-alive timeout: the pooled socket
        // was closed meanwhile. Sent again once with the same Idempotency-Key, a command replays (SEC-3).
        if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
        response = await send();
      }
      return { status: response.status, body: await response.json(), headers: response.headers };
    },
    kill,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null)
        return { code: child.exitCode, signal: child.signalCode };
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      child.kill('SIGTERM');
      return exited;
    },
    async restart() {
      await kill();
      child = spawnServe();
      listen();
      await untilReady();
    },
    async close() {
      await kill();
      if (postgres) {
        await postgres.sql.close();
        if (!options.joining) await dropSchema(postgres.schema);
      }
    },
  };
}
