import type { Readings, Section } from './readings.js';
import { MAX_CLAIM_NEXT_WAIT_SECONDS } from '../../commands/claim-next-execution/claim-next-wait.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../domain/shared/json-bounds.js';
import { ConfigError, integer, oneOf, text } from './variable.js';

export const PORT = integer('PORT', { min: 0, max: 65535 }, 3000);
export const HOST = text('HOST', {
  accepts: 'a host name or IP address',
  unset: '`0.0.0.0`',
  fallback: '0.0.0.0',
  valid: (raw) => /^[A-Za-z0-9.:%-]+$/.test(raw),
});
/** SEC-3: a retried request must find its first answer for at least a day. */
export const REVEILLE_IDEMPOTENCY_RETENTION_HOURS = integer('REVEILLE_IDEMPOTENCY_RETENTION_HOURS', { min: 24 }, 24);

/**
 * Slow senders are cut (WH-1: nothing unbounded is buffered, and a connection is memory): a sender trickling
 * headers or a body holds a socket only this long, then gets 408 and the connection closes.
 */
export const REVEILLE_HTTP_HEADERS_TIMEOUT_MS = integer(
  'REVEILLE_HTTP_HEADERS_TIMEOUT_MS',
  { min: 100, max: 600000 },
  10000,
);
export const REVEILLE_HTTP_REQUEST_TIMEOUT_MS = integer(
  'REVEILLE_HTTP_REQUEST_TIMEOUT_MS',
  { min: 100, max: 600000 },
  30000,
);
/**
 * Socket inactivity while a request is open, answer included: a claim-next long poll is silent for up to
 * MAX_CLAIM_NEXT_WAIT_SECONDS, so anything shorter would cut honest waiters.
 */
export const REVEILLE_HTTP_IDLE_TIMEOUT_MS = integer(
  'REVEILLE_HTTP_IDLE_TIMEOUT_MS',
  { min: MAX_CLAIM_NEXT_WAIT_SECONDS * 1000 + 5000, max: 600000 },
  30000,
);
export const REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS = integer(
  'REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS',
  { min: 100, max: 600000 },
  5000,
);

export interface HttpTimeouts {
  /** From connection (or the end of the previous answer) to the last header byte. */
  headersMs: number;
  /** From connection to the last body byte: the request timeout includes the headers. */
  requestMs: number;
  idleMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}
/** WH-1: JSON bodies (REST and ingress payloads) nested deeper than this answer 400. */
export const REVEILLE_MAX_JSON_DEPTH = integer(
  'REVEILLE_MAX_JSON_DEPTH',
  { min: 1, max: 1000 },
  DEFAULT_MAX_JSON_DEPTH,
);

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** OP-4: request and refusal lines at info; decisions and Nest's bootstrap wiring at debug. */
export const REVEILLE_LOG_LEVEL = oneOf('REVEILLE_LOG_LEVEL', LOG_LEVELS, '`info`');

export interface HttpSettings {
  port: number;
  host: string;
  idempotencyRetentionHours: number;
  timeouts: HttpTimeouts;
  maxJsonDepth: number;
  logLevel: LogLevel;
}

export const httpSection: Section<HttpSettings> = {
  variables: [
    PORT,
    HOST,
    REVEILLE_IDEMPOTENCY_RETENTION_HOURS,
    REVEILLE_HTTP_HEADERS_TIMEOUT_MS,
    REVEILLE_HTTP_REQUEST_TIMEOUT_MS,
    REVEILLE_HTTP_IDLE_TIMEOUT_MS,
    REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS,
    REVEILLE_MAX_JSON_DEPTH,
    REVEILLE_LOG_LEVEL,
  ],
  settings: (readings: Readings) => ({
    port: readings.get(PORT),
    host: readings.get(HOST),
    idempotencyRetentionHours: readings.get(REVEILLE_IDEMPOTENCY_RETENTION_HOURS),
    timeouts: timeouts(readings),
    maxJsonDepth: readings.get(REVEILLE_MAX_JSON_DEPTH),
    logLevel: readings.get(REVEILLE_LOG_LEVEL) ?? 'info',
  }),
};

function timeouts(readings: Readings): HttpTimeouts {
  const headersMs = readings.get(REVEILLE_HTTP_HEADERS_TIMEOUT_MS);
  const requestMs = readings.get(REVEILLE_HTTP_REQUEST_TIMEOUT_MS);
  // Node refuses a headers timeout above the request timeout: say so in configuration words.
  if (headersMs > requestMs) {
    throw new ConfigError(
      `REVEILLE_HTTP_HEADERS_TIMEOUT_MS (${headersMs}) must not exceed REVEILLE_HTTP_REQUEST_TIMEOUT_MS (${requestMs})`,
    );
  }
  return {
    headersMs,
    requestMs,
    idleMs: readings.get(REVEILLE_HTTP_IDLE_TIMEOUT_MS),
    keepAliveMs: readings.get(REVEILLE_HTTP_KEEP_ALIVE_TIMEOUT_MS),
  };
}
