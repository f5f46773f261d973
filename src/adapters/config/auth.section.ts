import type { Readings, Section } from './readings.js';
import { oneOf, text } from './variable.js';

export const NODE_ENV = text('NODE_ENV', {
  accepts: 'any value',
  unset: 'not production',
  fallback: null,
});
/** SEC-5: development auth is never the production default. */
export const REVEILLE_AUTH = oneOf('REVEILLE_AUTH', ['jwks', 'dev'], '`jwks` when `NODE_ENV=production`, else `dev`');
export const REVEILLE_JWKS_URL = text('REVEILLE_JWKS_URL', {
  accepts: 'an http:// or https:// URL',
  unset: 'unset',
  fallback: null,
  valid: isHttpUrl,
});
export const REVEILLE_JWKS_FILE = text('REVEILLE_JWKS_FILE', {
  accepts: 'a file path',
  unset: 'unset',
  fallback: null,
});
export const REVEILLE_JWT_ISSUER = text('REVEILLE_JWT_ISSUER', {
  accepts: 'any value',
  unset: '`reveille-dev`',
  fallback: 'reveille-dev',
});
export const REVEILLE_JWT_AUDIENCE = text('REVEILLE_JWT_AUDIENCE', {
  accepts: 'any value',
  unset: '`reveille`',
  fallback: 'reveille',
});
export const REVEILLE_SECRET_KEY = text('REVEILLE_SECRET_KEY', {
  accepts: 'any value',
  unset: 'secrets kept in plain text (development only)',
  fallback: null,
  secret: true,
});

export interface AuthSettings {
  production: boolean;
  auth: {
    mode: 'jwks' | 'dev';
    jwksUrl: string | null;
    jwksFile: string | null;
    issuer: string;
    audience: string;
  };
  /** Seals source secrets at rest when set (decision 7, docs/architecture.md). */
  secretKey: string | null;
}

export const authSection: Section<AuthSettings> = {
  variables: [
    NODE_ENV,
    REVEILLE_AUTH,
    REVEILLE_JWKS_URL,
    REVEILLE_JWKS_FILE,
    REVEILLE_JWT_ISSUER,
    REVEILLE_JWT_AUDIENCE,
    REVEILLE_SECRET_KEY,
  ],
  settings: (readings: Readings) => {
    const production = readings.get(NODE_ENV) === 'production';
    return {
      production,
      auth: {
        mode: readings.get(REVEILLE_AUTH) ?? (production ? 'jwks' : 'dev'),
        jwksUrl: readings.get(REVEILLE_JWKS_URL),
        jwksFile: readings.get(REVEILLE_JWKS_FILE),
        issuer: readings.get(REVEILLE_JWT_ISSUER),
        audience: readings.get(REVEILLE_JWT_AUDIENCE),
      },
      secretKey: readings.get(REVEILLE_SECRET_KEY),
    };
  },
};

function isHttpUrl(raw: string): boolean {
  return URL.canParse(raw) && ['http:', 'https:'].includes(new URL(raw).protocol);
}
