import type { ReveilleConfig } from '../config/config.js';
import { loadOrCreateDevKeys, mintDevToken } from '../http/auth/dev-keys.js';
import { type Options, stringOption, UsageError } from './args.js';
import { DEV_TENANT, tokenRequest } from './token-options.js';

/** Where a client command finds the service: `--url`, else REVEILLE_URL, else this host's PORT (api.md "CLI"). */
export function serviceUrl(options: Options, config: ReveilleConfig): string {
  const url = stringOption(options, 'url') ?? config.client.url ?? `http://127.0.0.1:${config.port}`;
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`--url must be an http:// or https:// URL, not "${url}"`);
  return url.replace(/\/+$/, '');
}

/**
 * REVEILLE_TOKEN, else (development mode only) a short-lived token for `--tenant`, or the development tenant the
 * README's examples use, minted like `reveille token` would, with only the scopes the command needs.
 */
export async function serviceToken(
  options: Options,
  config: ReveilleConfig,
  need: { command: string; scopes: string; subject: string },
): Promise<string> {
  if (config.client.token) {
    // The token names the tenant: a --tenant beside it would be silently ignored, so refuse it
    if (options.tenant !== undefined)
      throw new UsageError('--tenant mints a token; REVEILLE_TOKEN is set, its tenant applies');
    return config.client.token;
  }
  if (config.auth.mode !== 'dev')
    throw new UsageError(`set REVEILLE_TOKEN (scopes ${need.scopes}); only development mode mints one`);
  let tenant = stringOption(options, 'tenant');
  if (tenant === undefined) {
    // api.md: dev mode mints the token by itself; said, so nobody wonders where the definitions went
    tenant = DEV_TENANT;
    process.stderr.write(`reveille ${need.command}: development token for tenant ${tenant} (--tenant T for another)\n`);
  }
  const request = tokenRequest({ tenant, scope: need.scopes, ttl: '300', subject: need.subject });
  const keys = await loadOrCreateDevKeys(config.dataDir);
  return mintDevToken(keys, { ...request, issuer: config.auth.issuer, audience: config.auth.audience });
}
