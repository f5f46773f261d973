import { resolve } from 'node:path';
import type { Readings, Section } from './readings.js';
import { integer, text } from './variable.js';

export const DATABASE_URL = text('DATABASE_URL', {
  accepts: 'a postgres:// or postgresql:// URL',
  unset: 'the embedded PostgreSQL (PGlite) in `REVEILLE_DATA_DIR`',
  fallback: null,
  valid: (raw) => /^postgres(ql)?:\/\//.test(raw),
  secret: true,
});
/** Interpolated into `search_path` and `CREATE SCHEMA`, so only a plain identifier passes. */
export const REVEILLE_DB_SCHEMA = text('REVEILLE_DB_SCHEMA', {
  accepts: 'a lower-case SQL name (a-z, 0-9, _; at most 63 characters, not starting with a digit)',
  unset: 'the database role’s `search_path`',
  fallback: null,
  valid: (raw) => /^[a-z_][a-z0-9_]{0,62}$/.test(raw),
});
export const REVEILLE_DB_POOL = integer('REVEILLE_DB_POOL', { min: 1, max: 1000 }, 40);
export const REVEILLE_DATA_DIR = text('REVEILLE_DATA_DIR', {
  accepts: 'a directory path',
  unset: '`./.reveille`',
  fallback: './.reveille',
});
export const EVENTSTORE_URL = text('EVENTSTORE_URL', {
  accepts: 'an esdb:// or esdb+discover:// URL',
  unset: 'events in PostgreSQL',
  fallback: null,
  valid: (raw) => /^esdb(\+discover)?:\/\//.test(raw),
  secret: true,
});

export interface StorageSettings {
  /** Unset: PGlite under dataDir (decision 6, docs/architecture.md). */
  databaseUrl: string | null;
  databaseSchema: string | null;
  databasePool: number;
  dataDir: string;
  eventstoreUrl: string | null;
}

export const storageSection: Section<StorageSettings> = {
  variables: [DATABASE_URL, REVEILLE_DB_SCHEMA, REVEILLE_DB_POOL, REVEILLE_DATA_DIR, EVENTSTORE_URL],
  settings: (readings: Readings) => ({
    databaseUrl: readings.get(DATABASE_URL),
    databaseSchema: readings.get(REVEILLE_DB_SCHEMA),
    databasePool: readings.get(REVEILLE_DB_POOL),
    dataDir: resolve(readings.get(REVEILLE_DATA_DIR)),
    eventstoreUrl: readings.get(EVENTSTORE_URL),
  }),
};
