import { availableParallelism } from 'node:os';
import type { Readings, Section } from './readings.js';
import { DATABASE_URL } from './storage.section.js';
import { ConfigError, integer, oneOf, type Variable } from './variable.js';

export const REVEILLE_BACKGROUND = oneOf(
  'REVEILLE_BACKGROUND',
  ['on', 'off', 'thread'],
  '`thread` on PostgreSQL with ≥ 2 cores, else `on`',
);
const TASK_NAME = /^[A-Za-z0-9._:/-]+$/;
export const REVEILLE_BACKGROUND_ONLY: Variable<readonly string[] | null> = {
  name: 'REVEILLE_BACKGROUND_ONLY',
  accepts: 'comma-separated task names (letters, digits and . _ : / -)',
  unset: 'all',
  fallback: null,
  parse: (raw) => {
    const names = raw
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    return names.every((name) => TASK_NAME.test(name)) ? names : undefined;
  },
};
export const REVEILLE_PROJECTION_LINGER_MS = integer('REVEILLE_PROJECTION_LINGER_MS', { min: 0, max: 60_000 }, 50);
export const REVEILLE_ADMISSION_LINGER_MS = integer('REVEILLE_ADMISSION_LINGER_MS', { min: 0, max: 60_000 }, 5);
export const REVEILLE_DELIVERY_POLL_MS = integer('REVEILLE_DELIVERY_POLL_MS', { min: 50, max: 60_000 }, 500);

/** `thread` is PostgreSQL only; `off` leaves the work to another process. */
export type BackgroundMode = 'on' | 'off' | 'thread';

export interface BackgroundSettings {
  background: BackgroundMode;
  /** Roles split across processes; null runs them all. */
  backgroundOnly: readonly string[] | null;
  /** Tasks one thread of this process leaves to another (set by `serve` for its threads, never from the environment). */
  backgroundExcept?: readonly string[];
  /** A partial batch waits for more events, so batches grow under load. */
  lingerMs: { projections: number; admission: number };
  /** EX-4: the longest the delivery timers sleep before looking again for due retries and unclaimed deliveries. */
  deliveryPollMs: number;
}

export const backgroundSection: Section<BackgroundSettings> = {
  variables: [
    REVEILLE_BACKGROUND,
    REVEILLE_BACKGROUND_ONLY,
    REVEILLE_PROJECTION_LINGER_MS,
    REVEILLE_ADMISSION_LINGER_MS,
    REVEILLE_DELIVERY_POLL_MS,
  ],
  settings: (readings: Readings) => ({
    background: backgroundMode(readings.get(REVEILLE_BACKGROUND), readings.get(DATABASE_URL)),
    backgroundOnly: readings.get(REVEILLE_BACKGROUND_ONLY),
    lingerMs: {
      projections: readings.get(REVEILLE_PROJECTION_LINGER_MS),
      admission: readings.get(REVEILLE_ADMISSION_LINGER_MS),
    },
    deliveryPollMs: readings.get(REVEILLE_DELIVERY_POLL_MS),
  }),
};

/**
 * REVEILLE_DB_POOL is the process's budget: with background threads, the HTTP thread and each worker open their
 * own pool, so each gets a share. Commands need the most; the worker folds in few transactions at a time; a poller
 * thread holds one connection per poll in flight (a few).
 */
export function threadPools(pool: number, withPoller: boolean): { http: number; worker: number; poller: number } {
  const http = Math.max(1, Math.ceil(pool / 2));
  const poller = withPoller ? Math.max(1, Math.floor(pool / 4)) : 0;
  return { http, worker: Math.max(1, pool - http - poller), poller };
}

/** A thread keeps folds off the HTTP loop; PGlite is one in-process database and stays on one loop. */
function backgroundMode(mode: BackgroundMode | null, databaseUrl: string | null): BackgroundMode {
  if (mode === null) return databaseUrl && availableParallelism() >= 2 ? 'thread' : 'on';
  if (mode === 'thread' && !databaseUrl)
    throw new ConfigError(
      'REVEILLE_BACKGROUND=thread needs DATABASE_URL: the embedded PGlite can serve one thread only',
    );
  return mode;
}
