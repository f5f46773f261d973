import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, type ReveilleConfig } from '../../src/adapters/config/config.js';
import { type Infrastructure, openInfrastructure } from '../../src/adapters/eventstore/infrastructure.js';
import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { PgliteSqlClient } from '../../src/adapters/eventstore/sql/pglite-sql-client.js';
import type { SqlClient } from '../../src/projections/sql-client.js';
import { createApp } from '../../src/app.module.js';
import { allMigrations } from '../../src/app.module.js';
import { ProjectionRunners } from '../../src/adapters/runner/projection-runners.js';
import { dropSchema, TEST_DATABASE_URL } from './databases.js';
import { freshEmbeddedStore } from './embedded-store.js';
import { TestIssuer } from './tokens.js';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export type StoreKind = 'postgres' | 'pglite';

export interface TestApp {
  app: NestFastifyApplication;
  infra: Infrastructure;
  sql: SqlClient;
  issuer: TestIssuer;
  config: ReveilleConfig;
  baseUrl: string;
  /** One HTTP request over loopback through the whole pipeline. */
  request(options: {
    method: string;
    url: string;
    token?: string | null;
    body?: unknown;
    headers?: Record<string, string>;
    key?: string;
  }): Promise<TestResponse>;
  token(options?: Parameters<TestIssuer['token']>[0]): Promise<string>;
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

let keyCounter = 0;
export const newKey = () => `key-${Date.now()}-${++keyCounter}-${randomBytes(3).toString('hex')}`;

/** The real application over real PostgreSQL (a fresh schema) or embedded PGlite, with a test JWKS. */
export async function startTestApp(
  kind: StoreKind,
  options: {
    autostart?: boolean;
    env?: Record<string, string>;
    /** Reopen a database instead of a fresh one, kept on close: a schema (postgres) or a data directory (pglite). */
    database?: string;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'reveille-test-'));
  const issuer = await TestIssuer.create();
  const jwksFile = join(dataDir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(issuer.jwks));
  const config = loadConfig({
    NODE_ENV: 'test',
    REVEILLE_AUTH: 'jwks',
    REVEILLE_JWKS_FILE: jwksFile,
    REVEILLE_JWT_ISSUER: issuer.issuer,
    REVEILLE_JWT_AUDIENCE: issuer.audience,
    REVEILLE_DATA_DIR: dataDir,
    ...options.env,
  });
  const schema = options.database ?? `t_${randomBytes(6).toString('hex')}`;
  const sql =
    kind === 'postgres'
      ? await PgSqlClient.connect({ connectionString: TEST_DATABASE_URL, schema, max: 20 })
      : options.database
        ? await PgliteSqlClient.open(options.database)
        : await freshEmbeddedStore();
  const infra = await openInfrastructure(config, allMigrations(), { sql });
  const app = await createApp(config, infra, {
    logger: false,
    docsUi: false,
    startSubscriptions: options.autostart !== false,
  });
  // Real loopback HTTP: Fastify's inject pulls in an ESM-only dependency jest's require path cannot load.
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const testApp: TestApp = {
    app,
    infra,
    sql,
    issuer,
    config,
    baseUrl: base,
    token: (o) => issuer.token(o),
    async request({ method, url, token, body, headers = {}, key }) {
      const auth: Record<string, string> =
        token === null ? {} : { authorization: `Bearer ${token ?? (await issuer.token())}` };
      const idempotency: Record<string, string> = key ? { 'idempotency-key': key } : {};
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const contentType: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
      const response = await fetch(`${base}${url}`, {
        method,
        body: payload,
        headers: { ...contentType, ...auth, ...idempotency, ...headers },
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: parsed };
    },
    catchUp: () => app.get(ProjectionRunners).catchUpAll(),
    async close() {
      await app.close();
      await infra.close().catch(() => undefined);
      if (kind === 'postgres' && options.database === undefined) await dropSchema(schema);
    },
  };
  return testApp;
}
