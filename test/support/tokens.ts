import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JSONWebKeySet, type JWTPayload, SignJWT } from 'jose';

/** A real RSA issuer for tests: mints tokens with any claims, including hostile ones. */
export class TestIssuer {
  private constructor(
    readonly jwks: JSONWebKeySet,
    private readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'],
    readonly kid: string,
    readonly issuer = 'reveille-test',
    readonly audience = 'reveille',
  ) {}

  static async create(): Promise<TestIssuer> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = `test-${randomUUID()}`;
    return new TestIssuer(
      { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] },
      privateKey,
      kid,
    );
  }

  /** A valid token unless `claims`/`header` override something; `now` shifts iat/nbf/exp. */
  async token(
    options: {
      tenant?: string;
      scope?: string;
      subject?: string;
      claims?: JWTPayload;
      header?: Record<string, unknown>;
      now?: number;
      ttl?: number;
    } = {},
  ): Promise<string> {
    const now = options.now ?? Math.floor(Date.now() / 1000);
    const payload: JWTPayload = {
      iss: this.issuer,
      aud: this.audience,
      sub: options.subject ?? 'svc-test',
      tenant: options.tenant ?? 'tenant-a',
      scope:
        options.scope ??
        'missions:write triggers:write occurrences:write executions:write sources:write operator:read operator:recover audit:read',
      iat: now,
      nbf: now,
      exp: now + (options.ttl ?? 120),
      jti: randomUUID(),
      ...options.claims,
    };
    for (const [key, value] of Object.entries(payload)) if (value === undefined) delete payload[key];
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', kid: this.kid, typ: 'JWT', ...options.header })
      .sign(this.privateKey);
  }
}

export const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
