import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../domain/shared/canonical-json.js';

export const IDEMPOTENCY_PROTOCOL_VERSION = 1;

/** SEC-3: SHA-256 of compact, recursively key-sorted JSON of what makes two requests "the same". */
export function requestFingerprint(input: {
  operation: string;
  tenant: string;
  subject: string;
  body: unknown;
}): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        protocol_version: IDEMPOTENCY_PROTOCOL_VERSION,
        operation: input.operation,
        tenant: input.tenant,
        subject: input.subject,
        body: input.body ?? null,
      }),
    )
    .digest('hex');
}

/** `PUT /v1/triggers/{triggerId} t-1`: the route template with its resource ids, so a key reused on another resource conflicts. */
export function operationName(method: string, routeTemplate: string, params: Record<string, string>): string {
  const template = routeTemplate.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const ids = Object.keys(params)
    .sort()
    .map((k) => params[k])
    .join(' ');
  return ids ? `${method} ${template} ${ids}` : `${method} ${template}`;
}

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;
export const isValidIdempotencyKey = (key: string) => VISIBLE_ASCII.test(key);
