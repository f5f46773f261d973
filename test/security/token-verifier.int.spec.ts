import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { MAX_LIFETIME_SECONDS, TokenRejected, TokenVerifier } from '../../src/adapters/http/auth/token-verifier.js';
import { b64url, TestIssuer } from '../support/tokens.js';

describe('SEC-1 bearer token verification', () => {
  let issuer: TestIssuer;
  let verifier: TokenVerifier;
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    issuer = await TestIssuer.create();
    verifier = TokenVerifier.fromJwks(issuer.jwks, issuer.issuer, issuer.audience);
  });

  const rejects = (token: Promise<string> | string) =>
    expect(Promise.resolve(token).then((t) => verifier.verify(t))).rejects.toBeInstanceOf(TokenRejected);

  it('accepts a valid RS256 token and reads tenant, subject and scopes', async () => {
    const principal = await verifier.verify(
      await issuer.token({ tenant: 'acme', subject: 'svc-1', scope: 'missions:write operator:read' }),
    );
    expect(principal.tenant).toBe('acme');
    expect(principal.subject).toBe('svc-1');
    expect([...principal.scopes].sort()).toEqual(['missions:write', 'operator:read']);
  });

  it('rejects alg none', async () => {
    const claims = {
      iss: issuer.issuer,
      aud: issuer.audience,
      sub: 's',
      tenant: 't',
      iat: now(),
      nbf: now(),
      exp: now() + 60,
      jti: randomUUID(),
    };
    await rejects(`${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`);
  });

  it('rejects HS256 signed with the public key (algorithm confusion)', async () => {
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportSPKI(publicKey);
    const header = b64url({ alg: 'HS256', typ: 'JWT', kid: issuer.kid });
    const body = b64url({
      iss: issuer.issuer,
      aud: issuer.audience,
      sub: 's',
      tenant: 't',
      iat: now(),
      nbf: now(),
      exp: now() + 60,
      jti: randomUUID(),
    });
    const signature = createHmac('sha256', pem).update(`${header}.${body}`).digest('base64url');
    await rejects(`${header}.${body}.${signature}`);
    const jwkSecret = Buffer.from(JSON.stringify(issuer.jwks.keys[0]));
    await rejects(
      new SignJWT({ tenant: 't', jti: randomUUID(), sub: 's' })
        .setProtectedHeader({ alg: 'HS256', kid: issuer.kid })
        .setIssuer(issuer.issuer)
        .setAudience(issuer.audience)
        .setIssuedAt()
        .setNotBefore(now())
        .setExpirationTime(now() + 60)
        .sign(jwkSecret),
    );
  });

  it('rejects an unknown kid', async () => {
    await rejects(issuer.token({ header: { kid: 'not-a-known-key' } }));
  });

  it('rejects a token signed by another key under the same kid', async () => {
    const other = await TestIssuer.create();
    const forged = await other.token({ header: { kid: issuer.kid } });
    await rejects(forged);
  });

  it('rejects an expired token beyond the 30 s tolerance, accepts within it', async () => {
    await rejects(issuer.token({ now: now() - 200, ttl: 120 }));
    await expect(verifier.verify(await issuer.token({ now: now() - 140, ttl: 120 }))).resolves.toBeDefined();
  });

  it('rejects a token not yet valid (nbf in the future beyond tolerance)', async () => {
    await rejects(issuer.token({ claims: { nbf: now() + 120 } }));
  });

  it('rejects a lifetime over 300 s', async () => {
    await rejects(issuer.token({ ttl: 301 }));
    await expect(verifier.verify(await issuer.token({ ttl: 300 }))).resolves.toBeDefined();
  });

  it('rejects an iat in the future beyond the 30 s tolerance, so the 300 s lifetime is counted from now', async () => {
    // The attack: exp - iat = 300 and nbf = now, but iat a day ahead keeps the token usable for a day.
    const at = now();
    await rejects(issuer.token({ claims: { iat: at + 86_400, nbf: at, exp: at + 86_400 + 300 } }));
    await rejects(issuer.token({ claims: { iat: at + 60, nbf: at, exp: at + 360 } }));
    await rejects(issuer.token({ claims: { iat: at + 31, nbf: at, exp: at + 331 } }));
    // within the tolerance (a slightly fast issuer clock) it still passes
    await expect(
      verifier.verify(await issuer.token({ claims: { iat: at + 20, nbf: at + 20, exp: at + 320 } })),
    ).resolves.toBeDefined();
  });

  it('never accepts a token that stays usable more than 300 s + the tolerance from now', async () => {
    const at = now();
    const usable = MAX_LIFETIME_SECONDS + 30;
    for (const claims of [
      { iat: at + 30, nbf: at, exp: at + usable + 1 },
      { iat: at, nbf: at + 30, exp: at + usable + 1 },
      { iat: at + 86_400, nbf: at - 86_400, exp: at + 86_400 + 300 },
      { iat: at - 10, nbf: at - 10, exp: at + usable + 1 },
    ])
      await rejects(issuer.token({ claims }));
    const { verifier: late, setNow } = (() => {
      let clock = new Date(at * 1000);
      return {
        verifier: new TokenVerifier({
          keys: createLocalJWKSet(issuer.jwks),
          issuer: issuer.issuer,
          audience: issuer.audience,
          currentDate: () => clock,
        }),
        setNow: (date: Date) => (clock = date),
      };
    })();
    const token = await issuer.token({ claims: { iat: at + 30, nbf: at + 30, exp: at + usable } });
    await expect(late.verify(token)).resolves.toBeDefined();
    setNow(new Date((at + usable + 31) * 1000));
    await expect(late.verify(token)).rejects.toBeInstanceOf(TokenRejected);
  });

  it('rejects a wrong issuer or audience', async () => {
    await rejects(issuer.token({ claims: { iss: 'someone-else' } }));
    await rejects(issuer.token({ claims: { aud: 'other-service' } }));
  });

  it.each(['tenant', 'jti', 'nbf', 'iat', 'exp', 'sub'])('rejects a token missing %s', async (claim) => {
    await rejects(issuer.token({ claims: { [claim]: undefined } }));
  });

  it('rejects a jti that is not a UUID', async () => {
    await rejects(issuer.token({ claims: { jti: 'abc' } }));
  });

  it('rejects malformed tokens', async () => {
    await rejects('not-a-jwt');
    await rejects(`${b64url({ alg: 'RS256' })}.@@@.xyz`);
  });

  it('never echoes the token in its rejection', async () => {
    const token = await issuer.token({ claims: { iss: 'wrong' } });
    const error = await verifier.verify(token).catch((e: Error) => e);
    expect((error as Error).message).not.toContain(token.split('.')[1]);
  });

  describe('verified tokens are remembered until they expire', () => {
    const counting = () => {
      const keys = createLocalJWKSet(issuer.jwks);
      let lookups = 0;
      let at = new Date();
      const verifier = new TokenVerifier({
        keys: (...args) => {
          lookups += 1;
          return keys(...args);
        },
        issuer: issuer.issuer,
        audience: issuer.audience,
        currentDate: () => at,
      });
      return { verifier, lookups: () => lookups, setNow: (date: Date) => (at = date) };
    };

    it('a repeated token is not verified again', async () => {
      const { verifier, lookups } = counting();
      const token = await issuer.token({ tenant: 'acme' });
      await expect(verifier.verify(token)).resolves.toMatchObject({ tenant: 'acme' });
      await expect(verifier.verify(token)).resolves.toMatchObject({ tenant: 'acme' });
      expect(lookups()).toBe(1);
    });

    it('a remembered token is rejected past its exp and the 30 s tolerance, as a fresh one would be', async () => {
      const { verifier, setNow } = counting();
      const issuedAt = now();
      const token = await issuer.token({ now: issuedAt, ttl: 60 });
      await expect(verifier.verify(token)).resolves.toBeDefined();
      setNow(new Date((issuedAt + 60 + 29) * 1000));
      await expect(verifier.verify(token)).resolves.toBeDefined();
      setNow(new Date((issuedAt + 60 + 31) * 1000));
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenRejected);
    });

    it('a remembered token with one byte of its signature changed is verified afresh and rejected', async () => {
      const { verifier } = counting();
      const token = await issuer.token();
      await verifier.verify(token);
      const last = token.at(-2) === 'A' ? 'B' : 'A';
      await expect(verifier.verify(`${token.slice(0, -2)}${last}${token.at(-1)}`)).rejects.toBeInstanceOf(
        TokenRejected,
      );
    });

    it('a rejected token is not remembered', async () => {
      const { verifier, lookups } = counting();
      const token = await issuer.token({ claims: { iss: 'someone-else' } });
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenRejected);
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(TokenRejected);
      expect(lookups()).toBe(2);
    });
  });

  it('fetches keys from a JWKS URL and refetches when a rotated-in kid appears', async () => {
    const rotated = await TestIssuer.create();
    let served = issuer.jwks;
    let fetches = 0;
    const server = createServer((_, res) => {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
      const remote = TokenVerifier.fromJwksUrl(url, issuer.issuer, issuer.audience, { cooldownMs: 0 });
      await expect(remote.verify(await issuer.token())).resolves.toMatchObject({ tenant: 'tenant-a' });
      served = { keys: [...issuer.jwks.keys, ...rotated.jwks.keys] };
      await expect(remote.verify(await rotated.token({ claims: { iss: issuer.issuer } }))).resolves.toMatchObject({
        tenant: 'tenant-a',
      });
      expect(fetches).toBe(2);
    } finally {
      server.close();
    }
  });
});
