import type { Readings, Section } from './readings.js';
import { integer, text } from './variable.js';

export const PORT = integer('PORT', { min: 0, max: 65535 }, 3000);
export const HOST = text('HOST', {
  accepts: 'a host name or IP address',
  unset: '`0.0.0.0`',
  fallback: '0.0.0.0',
  valid: (raw) => /^[A-Za-z0-9.:%-]+$/.test(raw),
});
/** SEC-3: a retried request must find its first answer for at least a day. */
export const REVEILLE_IDEMPOTENCY_RETENTION_HOURS = integer('REVEILLE_IDEMPOTENCY_RETENTION_HOURS', { min: 24 }, 24);

/** WH-1: JSON bodies (REST and ingress payloads) nested deeper than this answer 400. */
export const REVEILLE_MAX_JSON_DEPTH = integer('REVEILLE_MAX_JSON_DEPTH', { min: 1, max: 1000 }, 64);

export interface HttpSettings {
  port: number;
  host: string;
  idempotencyRetentionHours: number;
  maxJsonDepth: number;
}

export const httpSection: Section<HttpSettings> = {
  variables: [PORT, HOST, REVEILLE_IDEMPOTENCY_RETENTION_HOURS, REVEILLE_MAX_JSON_DEPTH],
  settings: (readings: Readings) => ({
    port: readings.get(PORT),
    host: readings.get(HOST),
    idempotencyRetentionHours: readings.get(REVEILLE_IDEMPOTENCY_RETENTION_HOURS),
    maxJsonDepth: readings.get(REVEILLE_MAX_JSON_DEPTH),
  }),
};
