import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

/** Everything Reveille reads from its environment (api.md "Configuration"). */
export interface ReveilleConfig {
  port: number;
  production: boolean;
  /** Unset: the embedded PostgreSQL (PGlite) under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  eventstoreUrl: string | null;
  redisUrl: string | null;
  auth: {
    mode: 'jwks' | 'dev';
    jwksUrl: string | null;
    jwksFile: string | null;
    issuer: string;
    audience: string;
  };
  /** Encrypts source secrets at rest when set (ARCHITECTURE decision 7). */
  secretKey: string | null;
  idempotencyRetentionHours: number;
  /**
   * Where admission, read models and schedules run: `on` on the HTTP event loop, `thread` in a worker
   * thread of the same process (PostgreSQL only), `off` in another process.
   */
  background: BackgroundMode;
  /** WH-8: undecided Occurrences a source, and all sources together, may have before ingress answers 429. */
  maxOutstanding: { perSource: number; global: number };
}

export type BackgroundMode = 'on' | 'off' | 'thread';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ReveilleConfig {
  const production = env.NODE_ENV === 'production';
  const mode = (env.REVEILLE_AUTH ?? (production ? 'jwks' : 'dev')) as string;
  if (mode !== 'jwks' && mode !== 'dev') throw new ConfigError(`REVEILLE_AUTH must be "jwks" or "dev", not "${mode}"`);
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be a port number, not "${env.PORT}"`);
  const retention = Number(env.REVEILLE_IDEMPOTENCY_RETENTION_HOURS ?? 24);
  if (!(retention >= 24)) throw new ConfigError('REVEILLE_IDEMPOTENCY_RETENTION_HOURS must be at least 24 (SEC-3)');
  const databaseUrl = env.DATABASE_URL || null;
  return {
    port,
    production,
    databaseUrl,
    dataDir: resolve(env.REVEILLE_DATA_DIR ?? './.reveille'),
    eventstoreUrl: env.EVENTSTORE_URL || null,
    redisUrl: env.REDIS_URL || null,
    auth: {
      mode,
      jwksUrl: env.REVEILLE_JWKS_URL || null,
      jwksFile: env.REVEILLE_JWKS_FILE || null,
      issuer: env.REVEILLE_JWT_ISSUER ?? 'reveille-dev',
      audience: env.REVEILLE_JWT_AUDIENCE ?? 'reveille',
    },
    secretKey: env.REVEILLE_SECRET_KEY || null,
    idempotencyRetentionHours: retention,
    background: backgroundMode(env.REVEILLE_BACKGROUND, databaseUrl),
    maxOutstanding: {
      perSource: positiveInteger(env, 'REVEILLE_MAX_OUTSTANDING_PER_SOURCE', 10_000),
      global: positiveInteger(env, 'REVEILLE_MAX_OUTSTANDING', 100_000),
    },
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a positive integer, not "${raw}"`);
  return value;
}

/**
 * Default: a worker thread wherever it can run, so folds never stall the HTTP event loop — on
 * PostgreSQL with a second core; the embedded PGlite is one in-process database and stays on one loop.
 */
function backgroundMode(value: string | undefined, databaseUrl: string | null): BackgroundMode {
  if (value === undefined || value === '') return databaseUrl && availableParallelism() >= 2 ? 'thread' : 'on';
  if (value !== 'on' && value !== 'off' && value !== 'thread')
    throw new ConfigError(`REVEILLE_BACKGROUND must be "on", "off" or "thread", not "${value}"`);
  if (value === 'thread' && !databaseUrl)
    throw new ConfigError(
      'REVEILLE_BACKGROUND=thread needs DATABASE_URL: the embedded PGlite can serve one thread only',
    );
  return value;
}

/** Production refuses to start without a real key source; dev mode is never the production default (SEC-5). */
export function assertStartable(config: ReveilleConfig): void {
  if (config.auth.mode === 'jwks' && !config.auth.jwksUrl && !config.auth.jwksFile) {
    throw new ConfigError('REVEILLE_AUTH=jwks needs REVEILLE_JWKS_URL or REVEILLE_JWKS_FILE');
  }
}
