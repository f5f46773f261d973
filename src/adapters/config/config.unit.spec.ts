import { availableParallelism } from 'node:os';
import { assertStartable, ConfigError, loadConfig } from './config.js';
import { threadPools } from './background.section.js';

describe('REVEILLE_BACKGROUND', () => {
  const pg = { DATABASE_URL: 'postgres://127.0.0.1/test' };

  it('defaults to a worker thread on PostgreSQL with a second core, and to the HTTP loop on the embedded PGlite', () => {
    expect(loadConfig({ ...pg }).background).toBe(availableParallelism() >= 2 ? 'thread' : 'on');
    expect(loadConfig({}).background).toBe('on');
  });

  it('takes on, off and thread as given', () => {
    expect(loadConfig({ ...pg, REVEILLE_BACKGROUND: 'on' }).background).toBe('on');
    expect(loadConfig({ REVEILLE_BACKGROUND: 'off' }).background).toBe('off');
    expect(loadConfig({ ...pg, REVEILLE_BACKGROUND: 'thread' }).background).toBe('thread');
  });

  it('refuses a thread without PostgreSQL (PGlite serves one thread) and unknown values', () => {
    expect(() => loadConfig({ REVEILLE_BACKGROUND: 'thread' })).toThrow(
      new ConfigError('REVEILLE_BACKGROUND=thread needs DATABASE_URL: the embedded PGlite can serve one thread only'),
    );
    expect(() => loadConfig({ ...pg, REVEILLE_BACKGROUND: 'yes' })).toThrow(ConfigError);
  });
});

describe('REVEILLE_DB_POOL with a background thread', () => {
  it('is shared by the HTTP thread, the worker and the poller thread: their pools add up to the budget, each at least one', () => {
    for (const pool of [2, 3, 10, 40, 41, 1000]) {
      const two = threadPools(pool, false);
      expect(two.http + two.worker).toBe(pool);
      expect(two.poller).toBe(0);
    }
    for (const pool of [4, 10, 40, 41, 1000]) {
      const three = threadPools(pool, true);
      expect(three.http + three.worker + three.poller).toBe(pool);
    }
    expect(threadPools(40, false)).toEqual({ http: 20, worker: 20, poller: 0 });
    expect(threadPools(40, true)).toEqual({ http: 20, worker: 10, poller: 10 });
    expect(threadPools(1, true)).toEqual({ http: 1, worker: 1, poller: 1 });
  });
});

describe('WH-8 limits on undecided Occurrences', () => {
  it('default to 10,000 per source and 100,000 in all, and take positive integers', () => {
    expect(loadConfig({}).maxOutstanding).toEqual({ perSource: 10_000, global: 100_000 });
    expect(
      loadConfig({ REVEILLE_MAX_OUTSTANDING_PER_SOURCE: '3', REVEILLE_MAX_OUTSTANDING: '5' }).maxOutstanding,
    ).toEqual({ perSource: 3, global: 5 });
  });

  it('refuses values that would silently disable or break the limit', () => {
    for (const bad of ['0', '-1', '2.5', 'lots', 'Infinity']) {
      expect(() => loadConfig({ REVEILLE_MAX_OUTSTANDING: bad })).toThrow(
        new ConfigError(`REVEILLE_MAX_OUTSTANDING must be a positive integer, not "${bad}"`),
      );
    }
    expect(() => loadConfig({ REVEILLE_MAX_OUTSTANDING_PER_SOURCE: 'NaN' })).toThrow(ConfigError);
  });
});

describe('SEC-5 what production refuses to start without', () => {
  const production = { NODE_ENV: 'production', REVEILLE_JWKS_URL: 'https://idp.example/jwks.json' };
  const generatedKey = 'Jt2p8C2m1m7Wb6mJ4s9Qh0kq3yQmVnZr8u5xY1aB2cE=';

  it('refuses production without REVEILLE_SECRET_KEY, or with one too short to be a generated key', () => {
    expect(() => assertStartable(loadConfig(production))).toThrow(/REVEILLE_SECRET_KEY of at least 32 characters/);
    expect(() => assertStartable(loadConfig({ ...production, REVEILLE_SECRET_KEY: 'changeme' }))).toThrow(ConfigError);
  });

  it('starts production with a generated key and a JWKS source, and development without either', () => {
    expect(() => assertStartable(loadConfig({ ...production, REVEILLE_SECRET_KEY: generatedKey }))).not.toThrow();
    expect(() => assertStartable(loadConfig({}))).not.toThrow();
  });

  it('still names the missing JWKS source first in production', () => {
    expect(() => assertStartable(loadConfig({ NODE_ENV: 'production', REVEILLE_SECRET_KEY: generatedKey }))).toThrow(
      'REVEILLE_AUTH=jwks needs REVEILLE_JWKS_URL or REVEILLE_JWKS_FILE',
    );
  });
});
