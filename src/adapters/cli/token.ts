import { loadConfig } from '../config/config.js';
import { loadOrCreateDevKeys, mintDevToken } from '../http/auth/dev-keys.js';
import { UsageError } from './args.js';
import { tokenRequest } from './token-options.js';

/** `reveille token`: a development-mode token signed with the data directory's key. */
export async function token(options: Record<string, string | true>): Promise<void> {
  const config = loadConfig();
  if (config.auth.mode !== 'dev')
    throw new UsageError('tokens are minted only in development mode (REVEILLE_AUTH=dev)');
  const request = tokenRequest(options);
  const keys = await loadOrCreateDevKeys(config.dataDir);
  const jwt = await mintDevToken(keys, { ...request, issuer: config.auth.issuer, audience: config.auth.audience });
  process.stdout.write(`${jwt}\n`);
}
