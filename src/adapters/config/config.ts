import { type AuthSettings, authSection } from './auth.section.js';
import { type BackgroundSettings, backgroundSection } from './background.section.js';
import { type CapabilitySettings, capabilitiesSection } from './capabilities.section.js';
import { type ClientSettings, clientSection } from './client.section.js';
import { type HttpSettings, httpSection } from './http.section.js';
import { type IngressSettings, ingressSection } from './ingress.section.js';
import { Readings } from './readings.js';
import { type StorageSettings, storageSection } from './storage.section.js';
import { type TestOnlySettings, testOnlySection } from './test-only.section.js';
import { type WakeupSettings, wakeupSection } from './wakeup.section.js';
import { ConfigError, type Env, type Variable } from './variable.js';

export { ConfigError } from './variable.js';
export type { BackgroundMode } from './background.section.js';

/** Read once at startup; the README's "Configuration" table documents it. */
export interface ReveilleConfig
  extends
    HttpSettings,
    StorageSettings,
    AuthSettings,
    BackgroundSettings,
    IngressSettings,
    WakeupSettings,
    TestOnlySettings,
    ClientSettings,
    CapabilitySettings {}

const sections = [
  httpSection,
  storageSection,
  authSection,
  backgroundSection,
  ingressSection,
  wakeupSection,
  testOnlySection,
  clientSection,
  capabilitiesSection,
] as const;

/** The README's table is checked against this list. */
export const CONFIG_VARIABLES: readonly Variable<unknown>[] = sections.flatMap((section) => section.variables);

/** A bad variable throws a ConfigError naming it (the CLI prints it and exits 2). */
export function loadConfig(env: Env = process.env): ReveilleConfig {
  const readings = Readings.read(CONFIG_VARIABLES, env);
  return {
    ...httpSection.settings(readings),
    ...storageSection.settings(readings),
    ...authSection.settings(readings),
    ...backgroundSection.settings(readings),
    ...ingressSection.settings(readings),
    ...wakeupSection.settings(readings),
    ...testOnlySection.settings(readings),
    ...clientSection.settings(readings),
    ...capabilitiesSection.settings(readings),
  };
}

/** A secret key shorter than this is not a key an operator generated (`openssl rand -base64 32` gives 44). */
export const MIN_PRODUCTION_SECRET_KEY_LENGTH = 32;

/**
 * Dev mode is never the production default (SEC-5), and production never keeps source secrets in plain
 * text: a forgotten REVEILLE_SECRET_KEY would otherwise go unnoticed until the database leaks.
 */
export function assertStartable(config: ReveilleConfig): void {
  if (config.auth.mode === 'jwks' && !config.auth.jwksUrl && !config.auth.jwksFile) {
    throw new ConfigError('REVEILLE_AUTH=jwks needs REVEILLE_JWKS_URL or REVEILLE_JWKS_FILE');
  }
  if (config.production && (config.secretKey ?? '').length < MIN_PRODUCTION_SECRET_KEY_LENGTH) {
    throw new ConfigError(
      `NODE_ENV=production needs REVEILLE_SECRET_KEY of at least ${MIN_PRODUCTION_SECRET_KEY_LENGTH} characters ` +
        '(source secrets are sealed with it), e.g. `openssl rand -base64 32`',
    );
  }
}
