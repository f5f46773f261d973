import { sign } from '@octokit/webhooks-methods';
import { verifyDelivery, type SourceKey, type VerificationResult } from './verify.js';

// Signed by Octokit's reference implementation, verified by Reveille.
const NOW = new Date('2026-03-01T12:00:00.000Z');
const OLD: SourceKey = { keyId: 'gh1', generation: 1, secret: 'old-github-secret-0123' };
const NEW: SourceKey = { keyId: 'gh2', generation: 2, secret: 'nouveau-secret-clé-✓' };
const BODY = '{"action":"opened","number":7,"title":"Réparer"}';
const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';

function headers(signature: string | null, extra: string[] = []): string[] {
  const list = [
    'X-GitHub-Delivery',
    DELIVERY,
    'X-GitHub-Event',
    'pull_request',
    'Content-Type',
    'application/json',
    ...extra,
  ];
  return signature === null ? list : [...list, 'X-Hub-Signature-256', signature];
}

function verify(
  rawHeaders: string[],
  body: string | Buffer = BODY,
  keys: SourceKey[] = [OLD, NEW],
): VerificationResult {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return verifyDelivery({
    scheme: 'github-hmac-sha256',
    rawHeaders,
    body: bytes,
    keys,
    toleranceSeconds: 300,
    now: NOW,
  });
}

describe('WH-2 github-hmac-sha256 verification over exact raw bytes', () => {
  it('accepts an Octokit-signed delivery; there is no signed timestamp', async () => {
    expect(verify(headers(await sign(OLD.secret, BODY)))).toEqual({
      ok: true,
      authState: 'verified',
      keyId: 'gh1',
      keyGeneration: 1,
      deliveryId: DELIVERY,
      timestamp: null,
      eventTypeHeader: 'pull_request',
    });
  });

  it('WH-3 rotation: the non-ASCII secret of the new key verifies and is named', async () => {
    expect(verify(headers(await sign(NEW.secret, BODY)))).toMatchObject({ ok: true, keyId: 'gh2', keyGeneration: 2 });
  });

  it('WH-3 a key that is no longer passed in (retired) is signature_invalid', async () => {
    expect(verify(headers(await sign(OLD.secret, BODY)), BODY, [NEW])).toMatchObject({
      status: 401,
      code: 'signature_invalid',
    });
  });

  it.each([
    ['whitespace', '{"action": "opened", "number": 7, "title": "Réparer"}'],
    ['key order', '{"number":7,"action":"opened","title":"Réparer"}'],
    ['\\u00e9 escape', '{"action":"opened","number":7,"title":"R\\u00e9parer"}'],
  ])('attack: re-serialized body (%s) fails, the original bytes pass', async (_label, reserialized) => {
    const signature = await sign(OLD.secret, BODY);
    expect(verify(headers(signature), reserialized)).toMatchObject({
      ok: false,
      status: 401,
      code: 'signature_invalid',
    });
    expect(verify(headers(signature), BODY)).toMatchObject({ ok: true });
  });

  it('the event header is returned as received (it is not covered by the signature)', async () => {
    const rawHeaders = [
      'X-GitHub-Delivery',
      DELIVERY,
      'X-GitHub-Event',
      'push',
      'X-Hub-Signature-256',
      await sign(OLD.secret, BODY),
    ];
    expect(verify(rawHeaders)).toMatchObject({ ok: true, eventTypeHeader: 'push' });
  });
});

describe('WH-2 github signature format is strict', () => {
  it.each([
    ['upper-case hex', (s: string) => `sha256=${s.slice(7).toUpperCase()}`],
    ['upper-case prefix', (s: string) => `SHA256=${s.slice(7)}`],
    ['sha1 prefix on a sha256 MAC', (s: string) => `sha1=${s.slice(7)}`],
    ['no prefix', (s: string) => s.slice(7)],
    ['truncated hex', (s: string) => s.slice(0, -1)],
    ['extra hex digit', (s: string) => `${s}0`],
    ['non-hex digit', (s: string) => `${s.slice(0, -1)}g`],
    ['two signatures in one header', (s: string) => `${s} ${s}`],
  ])('attack: %s → 401 signature_invalid', async (_label, mutate) => {
    const signature = await sign(OLD.secret, BODY);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify(headers(mutate(signature)))).toMatchObject({ ok: false, status: 401, code: 'signature_invalid' });
  });

  it('only the legacy X-Hub-Signature (sha1) header → signature_missing, never unverified', () => {
    const result = verify(headers(null, ['X-Hub-Signature', `sha1=${'a'.repeat(40)}`]));
    expect(result).toMatchObject({ ok: false, status: 401, code: 'signature_missing' });
    expect(result).not.toHaveProperty('authState');
  });

  it('a Standard Webhooks signature on a github source → signature_missing', () => {
    const result = verify([
      'webhook-id',
      'msg_1',
      'webhook-timestamp',
      '1772366400',
      'webhook-signature',
      'v1,AAAA',
      'X-GitHub-Delivery',
      DELIVERY,
    ]);
    expect(result).toMatchObject({ ok: false, status: 401, code: 'signature_missing' });
  });
});

describe('WH-2 github headers fail closed', () => {
  it.each([
    ['X-Hub-Signature-256 twice', (s: string) => [...headers(s), 'x-hub-signature-256', s]],
    ['X-Hub-Signature-256 twice, folded into one line', (s: string) => headers(`${s}, ${s}`)],
    [
      'a forged X-Hub-Signature-256 folded before the valid one',
      (s: string) => headers(`sha256=${'0'.repeat(64)}, ${s}`),
    ],
    ['X-Hub-Signature-256 folded without whitespace', (s: string) => headers(`${s},${s}`)],
    ['X-GitHub-Delivery twice', (s: string) => [...headers(s), 'x-github-delivery', 'other-id']],
    // GitHub signs the body only: a folded delivery id passes the signature, so the fold itself must be refused
    [
      'X-GitHub-Delivery twice, folded into one line',
      (s: string) => ['X-GitHub-Delivery', `${DELIVERY}, other-id`, 'X-Hub-Signature-256', s],
    ],
    [
      'X-GitHub-Delivery folded without whitespace',
      (s: string) => ['X-GitHub-Delivery', `${DELIVERY},${DELIVERY}`, 'X-Hub-Signature-256', s],
    ],
    ['X-GitHub-Event twice', (s: string) => [...headers(s), 'x-github-event', 'push']],
    ['a delivery id with "."', (s: string) => ['X-GitHub-Delivery', 'a.b', 'X-Hub-Signature-256', s]],
    ['a 257-character delivery id', (s: string) => ['X-GitHub-Delivery', 'd'.repeat(257), 'X-Hub-Signature-256', s]],
    ['no delivery id', (s: string) => ['X-GitHub-Event', 'push', 'X-Hub-Signature-256', s]],
    [
      'an event type with a space',
      (s: string) => ['X-GitHub-Delivery', DELIVERY, 'X-GitHub-Event', 'push now', 'X-Hub-Signature-256', s],
    ],
  ])('validly signed but %s → 400 malformed_request', async (_label, build) => {
    const signature = await sign(OLD.secret, BODY);
    expect(verify(build(signature))).toMatchObject({ ok: false, status: 400, code: 'malformed_request' });
  });
});
