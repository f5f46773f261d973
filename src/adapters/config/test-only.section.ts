import { NODE_ENV } from './auth.section.js';
import type { Readings, Section } from './readings.js';
import { ConfigError, text } from './variable.js';

/**
 * TEST ONLY, refused in production: a request whose Idempotency-Key starts with this prefix kills the
 * process (SIGKILL) right after its command committed and before its answer is stored, so a test can
 * crash a real `reveille serve` exactly there (SEC-3).
 */
export const REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT = text('REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT', {
  accepts: 'an Idempotency-Key prefix (tests only; refused when NODE_ENV=production)',
  unset: 'never',
  fallback: null,
  valid: (raw) => /^[\x21-\x7e]{1,255}$/.test(raw),
});

export interface TestOnlySettings {
  testOnly: { crashAfterCommitKeyPrefix: string | null };
}

export const testOnlySection: Section<TestOnlySettings> = {
  variables: [REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT],
  settings: (readings: Readings) => {
    const prefix = readings.get(REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT);
    if (prefix !== null && readings.get(NODE_ENV) === 'production')
      throw new ConfigError('REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT is for tests and refused when NODE_ENV=production');
    return { testOnly: { crashAfterCommitKeyPrefix: prefix } };
  },
};
