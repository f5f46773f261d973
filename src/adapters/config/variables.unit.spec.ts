import { resolve } from 'node:path';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from './config.js';
import { type Env, integer, type Variable } from './variable.js';
import { MAX_CLAIM_NEXT_WAIT_SECONDS } from '../../commands/claim-next-execution/claim-next-wait.js';
import { cases } from './variables.fixtures.js';
import { IMPLEMENTED_CAPABILITIES } from './capabilities.js';

function refusal(env: Env): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('The configuration', () => {
  it('has cases here for every variable it reads, and reads each once', () => {
    const names = CONFIG_VARIABLES.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(cases).sort());
  });

  it('defaults to exactly what Reveille did before the settings moved here', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      idempotencyRetentionHours: 24,
      timeouts: { headersMs: 10_000, requestMs: 30_000, idleMs: 30_000, keepAliveMs: 5_000 },
      maxJsonDepth: 64,
      logLevel: 'info',
      databaseUrl: null,
      databaseSchema: null,
      databasePool: 40,
      dataDir: resolve('./.reveille'),
      eventstoreUrl: null,
      production: false,
      auth: { mode: 'dev', jwksUrl: null, jwksFile: null, issuer: 'reveille-dev', audience: 'reveille' },
      secretKey: null,
      background: 'on',
      backgroundOnly: null,
      lingerMs: { projections: 50, admission: 5 },
      deliveryPollMs: 500,
      ingressRate: { perSecond: 2_000, burst: 4_000 },
      maxOutstanding: { perSource: 10_000, global: 100_000 },
      wakeups: { redisUrl: null, stream: 'reveille:wakeups', maxLen: 100_000 },
      testOnly: { crashAfterCommitKeyPrefix: null },
      client: { url: null, token: null },
      claimedCapabilities: IMPLEMENTED_CAPABILITIES,
    });
  });

  it('SEC-3 refuses the test-only crash switch in production', () => {
    expect(refusal({ NODE_ENV: 'production', REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT: 'crash-' }).message).toBe(
      'REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT is for tests and refused when NODE_ENV=production',
    );
  });

  it('names every bad variable of one start in one refusal', () => {
    expect(refusal({ PORT: 'x', REVEILLE_DB_POOL: '0' }).message).toBe(
      'PORT must be an integer from 0 to 65535, not "x"; REVEILLE_DB_POOL must be an integer from 1 to 1000, not "0"',
    );
  });

  it('WH-1 refuses a headers timeout longer than the request timeout (Node would refuse it less clearly)', () => {
    expect(
      refusal({ REVEILLE_HTTP_HEADERS_TIMEOUT_MS: '2000', REVEILLE_HTTP_REQUEST_TIMEOUT_MS: '1000' }).message,
    ).toBe('REVEILLE_HTTP_HEADERS_TIMEOUT_MS (2000) must not exceed REVEILLE_HTTP_REQUEST_TIMEOUT_MS (1000)');
  });

  it('EX-2 keeps every connection idle timeout longer than the longest claim-next long poll', () => {
    const longestPollMs = MAX_CLAIM_NEXT_WAIT_SECONDS * 1000;
    expect(loadConfig({}).timeouts.idleMs).toBeGreaterThan(longestPollMs);
    expect(loadConfig({}).timeouts.requestMs).toBeGreaterThan(longestPollMs);
    expect(() => loadConfig({ REVEILLE_HTTP_IDLE_TIMEOUT_MS: String(longestPollMs) })).toThrow(ConfigError);
  });

  it('makes jwks the default auth in production (SEC-5)', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).auth.mode).toBe('jwks');
  });
});

describe.each(CONFIG_VARIABLES.map((variable) => [variable.name, variable] as const))(
  '%s',
  (name: string, variable: Variable<unknown>) => {
    const { setting, unset, good, bad, env = {} } = cases[name] ?? { setting: () => undefined, good: [], bad: [] };

    it('unset or empty: the default', () => {
      expect(setting(loadConfig(env))).toEqual(unset);
      expect(setting(loadConfig({ ...env, [name]: '' }))).toEqual(unset);
    });

    if (good.length > 0)
      it.each(good)('takes %j', (raw, expected) => {
        expect(setting(loadConfig({ ...env, [name]: raw }))).toEqual(expected);
      });

    if (bad.length > 0)
      it.each(bad)('refuses %j, naming the variable and what it accepts', (raw) => {
        const { message } = refusal({ ...env, [name]: raw });
        expect(message).toBe(
          variable.secret
            ? `${name} must be ${variable.accepts} (the value is not shown: it may hold credentials)`
            : `${name} must be ${variable.accepts}, not "${raw}"`,
        );
        if (variable.secret) expect(message).not.toContain(raw);
      });
  },
);

describe('Integer variables state their range', () => {
  it.each([
    [{ min: 0, max: 65535 }, 'an integer from 0 to 65535'],
    [{ min: 1 }, 'a positive integer'],
    [{ min: 24 }, 'an integer of at least 24'],
  ])('%j: %s', (range, accepts) => {
    const variable = integer('X', range, range.min);
    expect(variable.accepts).toBe(accepts);
    expect(variable.parse(String(range.min - 1))).toBeUndefined();
    expect(variable.parse(String(range.min))).toBe(range.min);
  });
});
