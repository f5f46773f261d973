import type { Readings, Section } from './readings.js';
import { integer, text } from './variable.js';

export const REDIS_URL = text('REDIS_URL', {
  accepts: 'a redis:// or rediss:// URL',
  unset: 'no Redis: wakeups reach `claim-next` waiters of the process only',
  fallback: null,
  valid: (raw) => /^rediss?:\/\//.test(raw),
  secret: true,
});
export const REVEILLE_WAKEUP_STREAM = text('REVEILLE_WAKEUP_STREAM', {
  accepts: 'a Redis key',
  unset: '`reveille:wakeups`',
  fallback: 'reveille:wakeups',
});
export const REVEILLE_WAKEUP_MAXLEN = integer('REVEILLE_WAKEUP_MAXLEN', { min: 1000 }, 100_000);

export interface WakeupSettings {
  /** Unset: no Redis dispatcher, in-process wakeups only (decision 6, docs/architecture.md). */
  wakeups: { redisUrl: string | null; stream: string; maxLen: number };
}

export const wakeupSection: Section<WakeupSettings> = {
  variables: [REDIS_URL, REVEILLE_WAKEUP_STREAM, REVEILLE_WAKEUP_MAXLEN],
  settings: (readings: Readings) => ({
    wakeups: {
      redisUrl: readings.get(REDIS_URL),
      stream: readings.get(REVEILLE_WAKEUP_STREAM),
      maxLen: readings.get(REVEILLE_WAKEUP_MAXLEN),
    },
  }),
};
