/** No error message from this module ever holds a secret, or any part of one (WH-3). */

export type SignedScheme = 'standard-webhooks' | 'github-hmac-sha256';
export type SourceScheme = SignedScheme | 'unsigned';

export const WHSEC_PREFIX = 'whsec_';
export const MIN_STANDARD_WEBHOOKS_KEY_BYTES = 24;
export const MIN_GITHUB_SECRET_CHARS = 16;
/** Generous upper bound so a key is never an unbounded input (keys arrive over the API). */
export const MAX_SECRET_BYTES = 1024;
export const GENERATED_SECRET_BYTES = 32;

export type SecretErrorCode =
  | 'scheme_has_no_secret'
  | 'secret_not_string'
  | 'secret_prefix_missing'
  | 'secret_encoding_invalid'
  | 'secret_too_short'
  | 'secret_too_long'
  | 'random_bytes_too_short';

export type ParsedSecret =
  | { readonly ok: true; readonly key: Buffer }
  | { readonly ok: false; readonly code: SecretErrorCode; readonly detail: string };

export class SourceSecretError extends Error {
  override readonly name = 'SourceSecretError';
  constructor(
    readonly code: SecretErrorCode,
    detail: string,
  ) {
    super(detail);
  }
}

function fail(code: SecretErrorCode, detail: string): ParsedSecret {
  return { ok: false, code, detail };
}

// Standard (not url-safe) alphabet with optional padding; canonical form is checked after decoding.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export function parseSecret(scheme: SourceScheme, secret: unknown): ParsedSecret {
  if (scheme === 'unsigned') return fail('scheme_has_no_secret', 'unsigned sources have no secret');
  if (typeof secret !== 'string') return fail('secret_not_string', 'secret must be a string');
  return scheme === 'standard-webhooks' ? parseWhsec(secret) : parseGithub(secret);
}

function parseWhsec(secret: string): ParsedSecret {
  if (!secret.startsWith(WHSEC_PREFIX))
    return fail('secret_prefix_missing', 'standard-webhooks secret must start with whsec_');
  const encoded = secret.slice(WHSEC_PREFIX.length);
  if (encoded.length > Math.ceil((MAX_SECRET_BYTES * 4) / 3) + 4)
    return fail('secret_too_long', `secret longer than ${MAX_SECRET_BYTES} bytes`);
  if (encoded.length === 0 || !BASE64.test(encoded))
    return fail('secret_encoding_invalid', 'secret is not standard base64 after whsec_');
  const key = Buffer.from(encoded, 'base64');
  // Buffer's decoder ignores non-zero trailing bits; requiring the canonical form means one key has
  // exactly one accepted spelling.
  if (key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    return fail('secret_encoding_invalid', 'secret is not canonical base64');
  }
  if (key.length < MIN_STANDARD_WEBHOOKS_KEY_BYTES) {
    return fail(
      'secret_too_short',
      `standard-webhooks secret must decode to at least ${MIN_STANDARD_WEBHOOKS_KEY_BYTES} bytes`,
    );
  }
  if (key.length > MAX_SECRET_BYTES) return fail('secret_too_long', `secret longer than ${MAX_SECRET_BYTES} bytes`);
  return { ok: true, key };
}

function parseGithub(secret: string): ParsedSecret {
  // A lone surrogate would be silently replaced by U+FFFD when encoded, so the key would not be the
  // string the operator configured.
  if (/\p{Cs}/u.test(secret)) return fail('secret_encoding_invalid', 'secret is not well-formed Unicode');
  // Control characters are almost always a pasted trailing newline: the provider would sign with a
  // different key and every delivery would fail with no obvious cause.
  if (/[\u0000-\u001f\u007f]/.test(secret))
    return fail('secret_encoding_invalid', 'secret contains control characters');
  if ([...secret].length < MIN_GITHUB_SECRET_CHARS) {
    return fail('secret_too_short', `github-hmac-sha256 secret must be at least ${MIN_GITHUB_SECRET_CHARS} characters`);
  }
  const key = Buffer.from(secret, 'utf8');
  if (key.length > MAX_SECRET_BYTES) return fail('secret_too_long', `secret longer than ${MAX_SECRET_BYTES} bytes`);
  return { ok: true, key };
}

/** Randomness is an argument (the domain is pure); only the first 32 bytes are used. */
export function generateSecret(scheme: SourceScheme, randomBytes: Buffer): string {
  if (scheme === 'unsigned') throw new SourceSecretError('scheme_has_no_secret', 'unsigned sources have no secret');
  if (randomBytes.length < GENERATED_SECRET_BYTES) {
    throw new SourceSecretError('random_bytes_too_short', `need at least ${GENERATED_SECRET_BYTES} random bytes`);
  }
  const material = randomBytes.subarray(0, GENERATED_SECRET_BYTES);
  // GitHub treats the secret as text it stores verbatim, so use an alphabet that survives copy/paste
  // and URL/form fields: 32 bytes → 43 base64url characters, no padding.
  return scheme === 'standard-webhooks' ? WHSEC_PREFIX + material.toString('base64') : material.toString('base64url');
}
