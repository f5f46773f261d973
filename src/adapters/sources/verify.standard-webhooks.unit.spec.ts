import { Webhook } from 'standardwebhooks';
import { verifyDelivery, type SourceKey, type VerificationResult } from './verify.js';

// Signed by the real Standard Webhooks client library, verified by Reveille.
const NOW = new Date('2026-03-01T12:00:00.000Z');
const OLD: SourceKey = { keyId: 'k1', generation: 1, secret: `whsec_${Buffer.alloc(32, 0x11).toString('base64')}` };
const NEW: SourceKey = { keyId: 'k2', generation: 2, secret: `whsec_${Buffer.alloc(24, 0x22).toString('base64')}` };
const RETIRED: SourceKey = { keyId: 'k0', generation: 0, secret: `whsec_${Buffer.alloc(32, 0x33).toString('base64')}` };
const BODY = '{"type":"order.paid","id":"ord_1","name":"Zoé"}';

function sign(key: SourceKey, id: string, at: Date, body: string): string {
  return new Webhook(key.secret).sign(id, at, body);
}

function headers(id: string, at: Date | string, signature: string): string[] {
  const ts = typeof at === 'string' ? at : String(Math.floor(at.getTime() / 1000));
  return [
    'Content-Type',
    'application/json',
    'webhook-id',
    id,
    'webhook-timestamp',
    ts,
    'webhook-signature',
    signature,
  ];
}

function verify(
  rawHeaders: string[],
  body: Buffer | string,
  keys: SourceKey[] = [OLD, NEW],
  now = NOW,
): VerificationResult {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return verifyDelivery({ scheme: 'standard-webhooks', rawHeaders, body: bytes, keys, toleranceSeconds: 300, now });
}

const expectFailure = (result: VerificationResult, status: 400 | 401, code: string): void => {
  expect(result).toMatchObject({ ok: false, status, code });
};

describe('WH-2 standard-webhooks verification over exact raw bytes', () => {
  it('accepts a delivery signed by the reference library', () => {
    const result = verify(headers('msg_1', NOW, sign(NEW, 'msg_1', NOW, BODY)), BODY);
    expect(result).toEqual({
      ok: true,
      authState: 'verified',
      keyId: 'k2',
      keyGeneration: 2,
      deliveryId: 'msg_1',
      timestamp: new Date(Math.floor(NOW.getTime() / 1000) * 1000),
      eventTypeHeader: null,
    });
  });

  it.each([
    ['whitespace added', '{"type": "order.paid", "id": "ord_1", "name": "Zoé"}'],
    ['keys reordered', '{"id":"ord_1","type":"order.paid","name":"Zoé"}'],
    ['é written as \\u00e9', '{"type":"order.paid","id":"ord_1","name":"Zo\\u00e9"}'],
    ['trailing newline', `${BODY}\n`],
  ])('attack: the same JSON re-serialized (%s) fails; the original bytes still pass', (_label, reserialized) => {
    expect(JSON.parse(reserialized)).toEqual(JSON.parse(BODY));
    const signature = sign(OLD, 'msg_2', NOW, BODY);
    expectFailure(verify(headers('msg_2', NOW, signature), reserialized), 401, 'signature_invalid');
    expect(verify(headers('msg_2', NOW, signature), BODY)).toMatchObject({ ok: true, keyId: 'k1' });
  });

  it('attack: invalid UTF-8 does not share a signature with its U+FFFD decoding', () => {
    const signature = sign(OLD, 'msg_3', NOW, '"\uFFFD"');
    expect(verify(headers('msg_3', NOW, signature), Buffer.from('"\uFFFD"', 'utf8'))).toMatchObject({ ok: true });
    expectFailure(verify(headers('msg_3', NOW, signature), Buffer.from([0x22, 0xff, 0x22])), 401, 'signature_invalid');
  });

  it('signatures bind the id and the timestamp, not just the body', () => {
    const signature = sign(OLD, 'msg_4', NOW, BODY);
    expectFailure(verify(headers('msg_5', NOW, signature), BODY), 401, 'signature_invalid');
    expectFailure(verify(headers('msg_4', new Date(NOW.getTime() + 1000), signature), BODY), 401, 'signature_invalid');
  });
});

describe('WH-3 key rotation: current and retained keys both verify, the result names the key', () => {
  it.each([
    [OLD, 'k1', 1],
    [NEW, 'k2', 2],
  ] as const)('a signature by %j', (key, keyId, generation) => {
    const result = verify(headers('msg_r', NOW, sign(key, 'msg_r', NOW, BODY)), BODY);
    expect(result).toMatchObject({ ok: true, keyId, keyGeneration: generation });
  });

  it('a retired key (no longer passed in) is signature_invalid', () => {
    expectFailure(verify(headers('msg_r', NOW, sign(RETIRED, 'msg_r', NOW, BODY)), BODY), 401, 'signature_invalid');
  });

  it('a sender signing with both keys during the overlap is accepted', () => {
    const both = `${sign(RETIRED, 'msg_b', NOW, BODY)} ${sign(OLD, 'msg_b', NOW, BODY)}`;
    expect(verify(headers('msg_b', NOW, both), BODY)).toMatchObject({ ok: true, keyId: 'k1' });
  });

  it('attack: a weak key (16 bytes) in the key list never authenticates anything', () => {
    const weak: SourceKey = {
      keyId: 'weak',
      generation: 3,
      secret: `whsec_${Buffer.alloc(16, 0x44).toString('base64')}`,
    };
    expectFailure(
      verify(headers('msg_w', NOW, sign(weak, 'msg_w', NOW, BODY)), BODY, [weak, OLD]),
      401,
      'signature_invalid',
    );
  });

  it('no keys at all is signature_invalid', () => {
    expectFailure(verify(headers('msg_n', NOW, sign(OLD, 'msg_n', NOW, BODY)), BODY, []), 401, 'signature_invalid');
  });
});

describe('WH-2 signature versions: unknown versions are skipped, never accepted', () => {
  const valid = sign(OLD, 'msg_v', NOW, BODY);
  const mac = valid.slice('v1,'.length);

  it('v1a and v2 entries carrying a valid MAC plus one valid v1 entry: ok', () => {
    expect(verify(headers('msg_v', NOW, `v1a,${mac} v2,${mac} ${valid}`), BODY)).toMatchObject({
      ok: true,
      keyId: 'k1',
    });
  });

  it.each([
    ['v1a and v2 only', `v1a,${mac} v2,${mac}`],
    ['upper-case V1', `V1,${mac}`],
    ['no version', mac],
    ['v1 with a trailing extra byte', `${valid}A`],
    ['v1 without its padding', valid.replace(/=+$/, '')],
    ['v1 with the MAC of another message', sign(OLD, 'msg_other', NOW, BODY)],
  ])('attack: %s → 401 signature_invalid', (_label, signature) => {
    expectFailure(verify(headers('msg_v', NOW, signature), BODY), 401, 'signature_invalid');
  });

  it('an absent or empty webhook-signature is signature_missing, never unverified', () => {
    const noSignature = ['webhook-id', 'msg_m', 'webhook-timestamp', String(NOW.getTime() / 1000)];
    expectFailure(verify(noSignature, BODY), 401, 'signature_missing');
    expectFailure(verify(headers('msg_m', NOW, ''), BODY), 401, 'signature_missing');
  });
});

describe('WH-4 timestamp tolerance in both directions', () => {
  const at = (offsetSeconds: number): Date => new Date(NOW.getTime() + offsetSeconds * 1000);

  it.each([
    ['301 s old', -301],
    ['301 s in the future', 301],
    ['a day in the future', 86_400],
  ])('a validly signed delivery %s → 401 timestamp_out_of_tolerance', (_label, offset) => {
    const result = verify(headers('msg_t', at(offset), sign(NEW, 'msg_t', at(offset), BODY)), BODY);
    expectFailure(result, 401, 'timestamp_out_of_tolerance');
  });

  it.each([-300, 300])('exactly %i s off is within tolerance', (offset) => {
    expect(verify(headers('msg_t', at(offset), sign(NEW, 'msg_t', at(offset), BODY)), BODY)).toMatchObject({
      ok: true,
    });
  });

  it('signature is checked first: a stale forged delivery learns nothing about the clock', () => {
    const forged = `v1,${Buffer.alloc(32).toString('base64')}`;
    expectFailure(verify(headers('msg_t', at(-10_000), forged), BODY), 401, 'signature_invalid');
  });

  it.each([
    'abc',
    '1.5',
    '-1',
    '1e9',
    '0x10',
    '+1772366400',
    '01772366400',
    '１７７２３６６４００',
    '1772366400 1',
    '9'.repeat(13),
    '',
  ])('malformed timestamp %j → 400 malformed_request', (timestamp) => {
    expectFailure(verify(headers('msg_t', timestamp, sign(NEW, 'msg_t', NOW, BODY)), BODY), 400, 'malformed_request');
  });

  it('missing timestamp → 400 malformed_request', () => {
    const rawHeaders = ['webhook-id', 'msg_t', 'webhook-signature', sign(NEW, 'msg_t', NOW, BODY)];
    expectFailure(verify(rawHeaders, BODY), 400, 'malformed_request');
  });

  it('refuses a tolerance that would make every comparison false', () => {
    const input = { scheme: 'standard-webhooks' as const, rawHeaders: [], body: Buffer.alloc(0), keys: [], now: NOW };
    expect(() => verifyDelivery({ ...input, toleranceSeconds: Number.NaN })).toThrow(RangeError);
    expect(() => verifyDelivery({ ...input, toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => verifyDelivery({ ...input, toleranceSeconds: 300, now: new Date(Number.NaN) })).toThrow(RangeError);
  });
});
