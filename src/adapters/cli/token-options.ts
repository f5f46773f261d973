import { isPrintableName } from '../../domain/shared/json-bounds.js';
import { SCOPES } from '../http/auth/principal.js';
import { MAX_LIFETIME_SECONDS } from '../http/auth/token-verifier.js';
import { stringOption, UsageError } from './args.js';

export interface TokenRequest {
  tenant: string;
  scope: string;
  ttlSeconds: number;
  subject?: string;
}

/** The tenant `apply` and `why` mint a development token for without --tenant: the README's examples' tenant. */
export const DEV_TENANT = 'acme';

/** Refuses here what the service would refuse later (SEC-1, SEC-2), so a minted token always works. */
export function tokenRequest(options: Record<string, string | true>): TokenRequest {
  const tenant = stringOption(options, 'tenant');
  if (tenant === undefined) throw new UsageError('--tenant is required');
  if (!isPrintableName(tenant) || tenant.length === 0 || tenant.length > 128)
    throw new UsageError('--tenant is 1 to 128 characters without control characters');
  const subject = stringOption(options, 'subject');
  if (subject !== undefined && (!isPrintableName(subject) || subject.length === 0 || subject.length > 256))
    throw new UsageError('--subject is 1 to 256 characters without control characters');
  const scopes = (stringOption(options, 'scope') ?? SCOPES.join(' ')).split(/\s+/).filter(Boolean);
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new UsageError(`unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; valid: ${SCOPES.join(' ')}`);
  if (scopes.length === 0) throw new UsageError(`--scope needs at least one of: ${SCOPES.join(' ')}`);
  const ttl = stringOption(options, 'ttl') ?? String(MAX_LIFETIME_SECONDS);
  const ttlSeconds = Number(ttl);
  if (!/^\d+$/.test(ttl) || ttlSeconds < 1 || ttlSeconds > MAX_LIFETIME_SECONDS)
    throw new UsageError(
      `--ttl is whole seconds from 1 to ${MAX_LIFETIME_SECONDS}, not "${ttl}": the service refuses longer-lived tokens (SEC-1); mint a new one when it expires`,
    );
  return { tenant, scope: scopes.join(' '), ttlSeconds, subject };
}
