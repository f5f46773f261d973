import { readFileSync } from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { isPrintableName } from '../../../domain/shared/json-bounds.js';
import type { Principal } from './principal.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** SEC-1: `exp - iat`; the CLI mints nothing longer. */
export const MAX_LIFETIME_SECONDS = 300;
const CLOCK_TOLERANCE_SECONDS = 30;
/** Verified tokens kept; a client sends the same token until it expires, so a few cover a busy deployment. */
const REMEMBERED_TOKENS = 1_000;

export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

export interface TokenVerifierOptions {
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  /** Injected in tests; jose reads the real clock otherwise. */
  currentDate?: () => Date;
}

/** SEC-1: RS256 only, keys from a JWKS, exact iss/aud, short-lived, nbf and a UUID jti required. */
export class TokenVerifier {
  /**
   * By the token's exact text, until it expires: an RSA verification costs ≈ 0.2–0.3 ms of CPU, more than the
   * rest of a request's own work. Only tokens that passed every check get here, and none outlives its `exp`
   * (within the same tolerance), which is shorter than the key set's own cache (jose keeps it 10 minutes).
   */
  private readonly verified = new Map<string, { principal: Principal; untilMs: number }>();

  constructor(private readonly options: TokenVerifierOptions) {}

  static fromJwksUrl(
    url: string,
    issuer: string,
    audience: string,
    options: { cooldownMs?: number } = {},
  ): TokenVerifier {
    // jose caches the set, refetches on an unknown kid and rate-limits refetches (cooldownDuration).
    const keys = createRemoteJWKSet(new URL(url), {
      cooldownDuration: options.cooldownMs ?? 30_000,
      cacheMaxAge: 600_000,
    });
    return new TokenVerifier({ keys, issuer, audience });
  }

  static fromJwksFile(path: string, issuer: string, audience: string): TokenVerifier {
    return TokenVerifier.fromJwks(JSON.parse(readFileSync(path, 'utf8')) as JSONWebKeySet, issuer, audience);
  }

  static fromJwks(jwks: JSONWebKeySet, issuer: string, audience: string): TokenVerifier {
    return new TokenVerifier({ keys: createLocalJWKSet(jwks), issuer, audience });
  }

  async verify(token: string): Promise<Principal> {
    const nowMs = (this.options.currentDate?.() ?? new Date()).getTime();
    const known = this.verified.get(token);
    if (known && nowMs < known.untilMs) return known.principal;
    if (known) this.verified.delete(token);
    const { principal, exp } = await this.verifyAfresh(token, nowMs);
    this.verified.set(token, { principal, untilMs: (exp + CLOCK_TOLERANCE_SECONDS) * 1000 });
    if (this.verified.size > REMEMBERED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
    return principal;
  }

  private async verifyAfresh(token: string, nowMs: number): Promise<{ principal: Principal; exp: number }> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.options.keys, {
        algorithms: ['RS256'],
        issuer: this.options.issuer,
        audience: this.options.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'nbf', 'jti'],
        currentDate: new Date(nowMs),
      }));
    } catch (error) {
      // jose's message names the failed check, never the token itself
      throw new TokenRejected((error as Error).message);
    }
    const { exp, iat, jti, sub } = payload;
    const tenant = payload.tenant;
    const scope = payload.scope ?? '';
    if (typeof exp !== 'number' || typeof iat !== 'number' || exp - iat > MAX_LIFETIME_SECONDS)
      throw new TokenRejected(`token lifetime exceeds ${MAX_LIFETIME_SECONDS} s`);
    // exp - iat alone bounds nothing when iat lies ahead: iat = now + 1 day, nbf = now would be usable for a day.
    // With iat at most the tolerance ahead, exp is at most 300 s + the tolerance from now; checked again as is.
    const nowSeconds = Math.floor(nowMs / 1000);
    if (iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) throw new TokenRejected('iat is in the future');
    if (exp - nowSeconds > MAX_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
      throw new TokenRejected(`token lifetime exceeds ${MAX_LIFETIME_SECONDS} s`);
    if (typeof jti !== 'string' || !UUID.test(jti)) throw new TokenRejected('jti must be a UUID');
    if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > 128)
      throw new TokenRejected('tenant claim missing');
    if (typeof sub !== 'string' || sub.length === 0) throw new TokenRejected('sub claim missing');
    // They are stored and compared as text (PostgreSQL refuses NUL): a control character is a forged claim.
    if (!isPrintableName(tenant) || !isPrintableName(sub))
      throw new TokenRejected('tenant and sub claims must not contain control characters');
    if (sub.length > 256) throw new TokenRejected('sub claim too long');
    if (typeof scope !== 'string') throw new TokenRejected('scope must be a space-separated string');
    const principal = { tenant, subject: sub, scopes: new Set(scope.split(' ').filter(Boolean)), tokenId: jti };
    return { principal, exp };
  }
}
