import type { Readings, Section } from './readings.js';
import { text } from './variable.js';

/** Where `reveille apply` writes: a running service, reached over its HTTP API like any other client. */
export const REVEILLE_URL = text('REVEILLE_URL', {
  accepts: 'an http:// or https:// URL',
  unset: '`http://127.0.0.1:$PORT`',
  fallback: null,
  valid: (raw) => /^https?:\/\/[^\s]+$/.test(raw),
});
/** The bearer token `reveille apply` sends; in development mode the CLI can mint one instead. */
export const REVEILLE_TOKEN = text('REVEILLE_TOKEN', {
  accepts: 'a JWT',
  unset: 'minted from the development keys (REVEILLE_AUTH=dev) for --tenant, default acme',
  fallback: null,
  valid: (raw) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(raw),
  secret: true,
});

export interface ClientSettings {
  client: { url: string | null; token: string | null };
}

export const clientSection: Section<ClientSettings> = {
  variables: [REVEILLE_URL, REVEILLE_TOKEN],
  settings: (readings: Readings) => ({
    client: { url: readings.get(REVEILLE_URL), token: readings.get(REVEILLE_TOKEN) },
  }),
};
