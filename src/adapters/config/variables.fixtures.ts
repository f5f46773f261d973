import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { type ReveilleConfig } from './config.js';
import { type Env } from './variable.js';
import { IMPLEMENTED_CAPABILITIES } from './capabilities.js';

/** Per variable: where it lands, its default, values it takes and values it refuses (the config specs). */
export interface Cases {
  /** Where the variable's value lands in the config. */
  setting(config: ReveilleConfig): unknown;
  /** The setting when the variable is unset or empty: today's default. */
  unset: unknown;
  good: Array<[raw: string, setting: unknown]>;
  bad: string[];
  /** Other variables these cases need. */
  env?: Env;
}

const same = (raw: string): [string, string] => [raw, raw];
export const cases: Record<string, Cases> = {
  PORT: {
    setting: (c) => c.port,
    unset: 3000,
    good: [
      ['0', 0],
      ['8080', 8080],
      ['65535', 65535],
    ],
    bad: ['-1', '65536', '80.5', 'http', 'Infinity'],
  },
  HOST: {
    setting: (c) => c.host,
    unset: '0.0.0.0',
    good: [same('127.0.0.1'), same('::1'), same('api.internal')],
    bad: ['two words', 'http://api.internal/'],
  },
  REVEILLE_IDEMPOTENCY_RETENTION_HOURS: {
    setting: (c) => c.idempotencyRetentionHours,
    unset: 24,
    good: [
      ['24', 24],
      ['168', 168],
    ],
    bad: ['23', '0', '24.5', 'a day', 'Infinity'],
  },
  REVEILLE_HTTP_HEADERS_TIMEOUT_MS: {
    setting: (c) => c.timeouts.headersMs,
    unset: 10_000,
    good: [
      ['100', 100],
      ['600000', 600_000],
    ],
    bad: ['0', '99', '600001', 'soon', '1.5'],
    env: { REVEILLE_HTTP_REQUEST_TIMEOUT_MS: '600000' },
  },
  REVEILLE_HTTP_REQUEST_TIMEOUT_MS: {
    setting: (c) => c.timeouts.requestMs,
    unset: 30_000,
    good: [
      ['100', 100],
      ['600000', 600_000],
    ],
    bad: ['0', '99', '600001', 'forever'],
    env: { REVEILLE_HTTP_HEADERS_TIMEOUT_MS: '100' },
  },
  REVEILLE_HTTP_IDLE_TIMEOUT_MS: {
    setting: (c) => c.timeouts.idleMs,
    unset: 30_000,
    good: [
      ['25000', 25_000],
      ['600000', 600_000],
    ],
    // Shorter than claim-next's 20 s long poll would cut honest waiters.
    bad: ['0', '20000', '24999', '600001'],
  },
  REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS: {
    setting: (c) => c.timeouts.keepAliveMs,
    unset: 5_000,
    good: [
      ['100', 100],
      ['600000', 600_000],
    ],
    bad: ['0', '99', '600001', 'idle'],
  },
  REVEILLE_LOG_LEVEL: {
    setting: (c) => c.logLevel,
    unset: 'info',
    good: [same('debug'), same('silent')],
    bad: ['verbose', 'INFO', 'trace'],
  },
  REVEILLE_MAX_JSON_DEPTH: {
    setting: (c) => c.maxJsonDepth,
    unset: 64,
    good: [
      ['1', 1],
      ['200', 200],
    ],
    bad: ['0', '1001', '6.5', 'deep', 'Infinity'],
  },
  DATABASE_URL: {
    setting: (c) => c.databaseUrl,
    unset: null,
    good: [same('postgres://reveille:pw@db:5432/reveille'), same('postgresql:///test?host=/var/run/postgresql')],
    bad: ['mysql://db/reveille', 'db:5432'],
  },
  REVEILLE_DB_SCHEMA: {
    setting: (c) => c.databaseSchema,
    unset: null,
    good: [same('t_0a1b2c'), same('_reveille')],
    bad: ['Tenant', '1st', 'a-b', 'x; DROP SCHEMA public', 'a'.repeat(64)],
  },
  REVEILLE_DB_POOL: {
    setting: (c) => c.databasePool,
    unset: 40,
    good: [
      ['1', 1],
      ['1000', 1000],
    ],
    bad: ['0', '1001', 'ten', '2.5'],
  },
  REVEILLE_DATA_DIR: {
    setting: (c) => c.dataDir,
    unset: resolve('./.reveille'),
    good: [same('/var/lib/reveille'), ['data', resolve('data')]],
    bad: [],
  },
  EVENTSTORE_URL: {
    setting: (c) => c.eventstoreUrl,
    unset: null,
    good: [same('esdb://eventstore:2113?tls=false'), same('esdb+discover://admin:changeit@cluster.example:2113')],
    bad: ['kurrentdb://eventstore:2113', 'http://eventstore:2113'],
  },
  NODE_ENV: {
    setting: (c) => c.production,
    unset: false,
    good: [
      ['production', true],
      ['development', false],
      ['test', false],
    ],
    bad: [],
  },
  REVEILLE_AUTH: {
    setting: (c) => c.auth.mode,
    unset: 'dev',
    good: [same('jwks'), same('dev')],
    bad: ['none', 'JWKS', 'dev '],
  },
  REVEILLE_JWKS_URL: {
    setting: (c) => c.auth.jwksUrl,
    unset: null,
    good: [same('https://idp.example/.well-known/jwks.json'), same('http://127.0.0.1:8080/jwks')],
    bad: ['idp.example/jwks.json', 'file:///etc/reveille/jwks.json', 'https://'],
  },
  REVEILLE_JWKS_FILE: {
    setting: (c) => c.auth.jwksFile,
    unset: null,
    good: [same('/etc/reveille/jwks.json')],
    bad: [],
  },
  REVEILLE_JWT_ISSUER: {
    setting: (c) => c.auth.issuer,
    unset: 'reveille-dev',
    good: [same('https://idp.example/')],
    bad: [],
  },
  REVEILLE_JWT_AUDIENCE: {
    setting: (c) => c.auth.audience,
    unset: 'reveille',
    good: [same('reveille-prod')],
    bad: [],
  },
  REVEILLE_SECRET_KEY: {
    setting: (c) => c.secretKey,
    unset: null,
    good: [same('bG9uZyByYW5kb20gdmFsdWUgZm9yIHRoZSBzZWNyZXRzIQ==')],
    bad: [],
  },
  REVEILLE_BACKGROUND: {
    setting: (c) => c.background,
    env: { DATABASE_URL: 'postgres://127.0.0.1/test' },
    unset: availableParallelism() >= 2 ? 'thread' : 'on',
    good: [same('on'), same('off'), same('thread')],
    bad: ['yes', 'ON', 'both'],
  },
  REVEILLE_BACKGROUND_ONLY: {
    setting: (c) => c.backgroundOnly,
    unset: null,
    good: [
      ['processor:admission', ['processor:admission']],
      [' processor:admission , scheduler:materializer ', ['processor:admission', 'scheduler:materializer']],
    ],
    bad: ['processor;admission', 'processor admission'],
  },
  REVEILLE_PROJECTION_LINGER_MS: {
    setting: (c) => c.lingerMs.projections,
    unset: 50,
    good: [
      ['0', 0],
      ['100', 100],
    ],
    bad: ['-1', '60001', 'fast', '2.5'],
  },
  REVEILLE_ADMISSION_LINGER_MS: {
    setting: (c) => c.lingerMs.admission,
    unset: 5,
    good: [
      ['0', 0],
      ['60000', 60_000],
    ],
    bad: ['-5', '60001', 'soon', '0.5'],
  },
  REVEILLE_DELIVERY_POLL_MS: {
    setting: (c) => c.deliveryPollMs,
    unset: 500,
    good: [
      ['50', 50],
      ['60000', 60_000],
    ],
    bad: ['0', '49', '60001', 'soon'],
  },
  REVEILLE_INGRESS_RATE: {
    setting: (c) => c.ingressRate.perSecond,
    unset: 2_000,
    good: [
      ['1', 1],
      ['1000000', 1_000_000],
    ],
    bad: ['0', '-5', '1.5', 'lots'],
  },
  REVEILLE_INGRESS_BURST: {
    setting: (c) => c.ingressRate.burst,
    unset: 4_000,
    good: [['1', 1]],
    bad: ['0', '-5', '1.5', 'lots'],
  },
  REVEILLE_MAX_OUTSTANDING_PER_SOURCE: {
    setting: (c) => c.maxOutstanding.perSource,
    unset: 10_000,
    good: [['3', 3]],
    bad: ['0', '-1', '2.5', 'lots', 'Infinity'],
  },
  REVEILLE_MAX_OUTSTANDING: {
    setting: (c) => c.maxOutstanding.global,
    unset: 100_000,
    good: [['5', 5]],
    bad: ['0', '-1', '2.5', 'lots', 'Infinity'],
  },
  REVEILLE_WITHHELD_CAPABILITIES: {
    setting: (c) => c.claimedCapabilities,
    unset: IMPLEMENTED_CAPABILITIES,
    good: [
      ['wf.polling-initiation', IMPLEMENTED_CAPABILITIES.filter((id) => id !== 'wf.polling-initiation')],
      [
        ' wf.batching , wf.dedupe-windows ',
        IMPLEMENTED_CAPABILITIES.filter((id) => id !== 'wf.batching' && id !== 'wf.dedupe-windows'),
      ],
    ],
    bad: ['wf.teleport', 'wf.batching,wf.teleport', ',', 'wf.Batching'],
  },
  REDIS_URL: {
    setting: (c) => c.wakeups.redisUrl,
    unset: null,
    good: [same('redis://127.0.0.1:6379'), same('rediss://:secret@redis.internal:6380/2')],
    bad: ['127.0.0.1:6379', 'http://redis.internal'],
  },
  REVEILLE_WAKEUP_STREAM: {
    setting: (c) => c.wakeups.stream,
    unset: 'reveille:wakeups',
    good: [same('acme:wakeups')],
    bad: [],
  },
  REVEILLE_WAKEUP_MAXLEN: {
    setting: (c) => c.wakeups.maxLen,
    unset: 100_000,
    good: [
      ['1000', 1000],
      ['5000000', 5_000_000],
    ],
    bad: ['999', '0', '1.5', 'lots'],
  },
  REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT: {
    setting: (c) => c.testOnly.crashAfterCommitKeyPrefix,
    unset: null,
    good: [same('crash-'), same('k')],
    bad: ['with space', 'x'.repeat(256)],
  },
  REVEILLE_URL: {
    setting: (c) => c.client.url,
    unset: null,
    good: [same('http://127.0.0.1:3000'), same('https://reveille.internal/base')],
    bad: ['127.0.0.1:3000', 'ftp://x', 'http://a b'],
  },
  REVEILLE_TOKEN: {
    setting: (c) => c.client.token,
    unset: null,
    good: [same('eyJhbGciOiJSUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.c2ln')],
    bad: ['Bearer abc.def.ghi', 'not-a-jwt'],
  },
};
