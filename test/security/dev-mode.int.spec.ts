import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { loadConfig } from '../../src/adapters/config/config.js';
import { openInfrastructure } from '../../src/adapters/eventstore/infrastructure.js';
import { PgliteSqlClient } from '../../src/adapters/eventstore/sql/pglite-sql-client.js';
import { createApp } from '../../src/app.module.js';
import { allMigrations } from '../../src/app.module.js';
import type { AddressInfo } from 'node:net';

const cli = (args: string[], env: Record<string, string>) =>
  execFileSync(process.execPath, ['bin/reveille.js', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

describe('SEC-5 development mode', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('mints a token with the CLI that the dev-mode service accepts, and production refuses dev tokens without a JWKS', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reveille-dev-'));
    const env = { REVEILLE_DATA_DIR: dataDir, NODE_ENV: 'development' };
    const token = cli(['token', '--tenant', 'acme', '--scope', 'missions:write operator:read'], env).trim();
    expect(token.split('.')).toHaveLength(3);

    const config = loadConfig(env);
    expect(config.auth.mode).toBe('dev');
    const infra = await openInfrastructure(config, allMigrations(), { sql: await PgliteSqlClient.open() });
    const app = await createApp(config, infra, { logger: false, docsUi: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
      const put = await fetch(`${base}/v1/missions/m-dev`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'dev-1' },
        body: JSON.stringify({
          state: 'active',
          grants: {
            maxExecutionsPerHour: 1,
            maxConcurrent: 1,
            resourceScopes: [],
            classification: 'internal',
            acceptLowerTrust: false,
            maxCausalDepth: 1,
          },
        }),
      });
      expect(put.status).toBe(200);
      const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as {
        keys: Array<Record<string, unknown>>;
      };
      expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256' });
      expect(jwks.keys[0].d).toBeUndefined(); // never the private half
    } finally {
      await app.close();
      await infra.close();
    }

    expect(() => cli(['token'], { ...env, NODE_ENV: 'production' })).toThrow(/development mode/);
    expect(() => cli(['token', '--tenant', 'acme', '--ttl', '900'], env)).toThrow(/ttl/);
  });
});
