import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config/variable.js';
import { ensureDataDir } from '../../config/data-dir.js';
import { MAX_LIFETIME_SECONDS } from './token-verifier.js';
import { exportJWK, generateKeyPair, importJWK, type JSONWebKeySet, type JWK, SignJWT } from 'jose';

/** SEC-5: a local RSA key pair for development mode only, kept in the data directory. */
export interface DevKeys {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export const devKeysPath = (dataDir: string) => join(dataDir, 'dev-keys.json');

export async function loadOrCreateDevKeys(dataDir: string): Promise<DevKeys> {
  const path = devKeysPath(dataDir);
  // Before the key pair is generated: a data directory that cannot be made is refused at once, in one line
  ensureDataDir(dataDir);
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as DevKeys;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const kid = `dev-${randomUUID()}`;
  const keys: DevKeys = {
    kid,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' },
  };
  // wx: two processes starting at once must not overwrite each other's keys
  try {
    writeFileSync(path, JSON.stringify(keys, null, 2), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return JSON.parse(readFileSync(path, 'utf8')) as DevKeys;
    throw new ConfigError(
      `REVEILLE_DATA_DIR=${dataDir} cannot be used: cannot write ${path} (${code ?? (error as Error).message})`,
    );
  }
  return keys;
}

export const devJwks = (keys: DevKeys): JSONWebKeySet => ({ keys: [keys.publicJwk] });

export interface MintOptions {
  tenant: string;
  scope: string;
  subject?: string;
  ttlSeconds?: number;
  issuer: string;
  audience: string;
}

export async function mintDevToken(keys: DevKeys, options: MintOptions): Promise<string> {
  const ttl = options.ttlSeconds ?? MAX_LIFETIME_SECONDS;
  if (ttl > MAX_LIFETIME_SECONDS || ttl < 1)
    throw new Error(`a token lives 1 to ${MAX_LIFETIME_SECONDS} seconds (SEC-1)`);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tenant: options.tenant, scope: options.scope })
    .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.subject ?? 'dev-cli')
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + ttl)
    .setJti(randomUUID())
    .sign(await importJWK(keys.privateJwk, 'RS256'));
}
