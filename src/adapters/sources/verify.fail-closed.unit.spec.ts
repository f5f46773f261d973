import { Webhook } from 'standardwebhooks';
import { verifyDelivery, type SourceKey, type VerificationResult } from './verify.js';
import type { SourceScheme } from '../../domain/source/source-secret.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TS = String(Math.floor(NOW.getTime() / 1000));
const KEY: SourceKey = { keyId: 'k1', generation: 1, secret: `whsec_${Buffer.alloc(32, 0x5a).toString('base64')}` };
const BODY = '{"type":"ping"}';
const sign = (id: string): string => new Webhook(KEY.secret).sign(id, NOW, BODY);

function verify(rawHeaders: string[], scheme: SourceScheme = 'standard-webhooks'): VerificationResult {
  return verifyDelivery({ scheme, rawHeaders, body: Buffer.from(BODY), keys: [KEY], toleranceSeconds: 300, now: NOW });
}

const malformed = { ok: false, status: 400, code: 'malformed_request' };

describe('WH-2 duplicated id/timestamp/signature headers → 400', () => {
  const valid = sign('msg_1');

  it.each([
    [
      'webhook-signature: forged copy after the valid one',
      ['webhook-signature', valid, 'webhook-signature', 'v1,AAAA'],
    ],
    ['webhook-signature: valid copy after a forged one', ['webhook-signature', 'v1,AAAA', 'webhook-signature', valid]],
    ['webhook-signature: two identical valid copies', ['webhook-signature', valid, 'Webhook-Signature', valid]],
    ['webhook-id', ['webhook-signature', valid, 'webhook-id', 'msg_2']],
    ['webhook-timestamp', ['webhook-signature', valid, 'WEBHOOK-TIMESTAMP', TS]],
  ])('%s', (_label, extra) => {
    const rawHeaders = ['webhook-id', 'msg_1', 'webhook-timestamp', TS, ...extra];
    expect(verify(rawHeaders)).toMatchObject(malformed);
  });

  // A proxy merging two header lines sends one line, the values joined by "," (RFC 9110 §5.3). Standard Webhooks'
  // own list is space-separated `<version>,<signature>` entries, base64 holds no ",": a second "," in an entry, or
  // "," before whitespace, is a folded duplicate, which a valid signature among the copies must not rescue.
  it.each([
    ['forged then valid, folded with ", "', `v1,${Buffer.alloc(32).toString('base64')}, ${valid}`],
    ['valid then forged, folded with ", "', `${valid}, v1,AAAA`],
    ['two identical valid copies, folded', `${valid}, ${valid}`],
    ['folded without whitespace', `v1,AAAA,${valid}`],
    ['an empty copy folded before a valid one', `, ${valid}`],
    ['a valid copy folded before an empty one', `${valid},`],
  ])('webhook-signature: %s', (_label, folded) => {
    const rawHeaders = ['webhook-id', 'msg_1', 'webhook-timestamp', TS, 'webhook-signature', folded];
    expect(verify(rawHeaders)).toMatchObject({ ...malformed, detail: expect.stringContaining('more than once') });
  });

  // The delivery id folded the same way (`msg_1, msg_2`), even when the sender signed the folded text it sent.
  it.each([
    ['standard-webhooks, folded with ", "', 'standard-webhooks', 'msg_1, msg_2'],
    ['standard-webhooks, folded without whitespace', 'standard-webhooks', 'msg_1,msg_1'],
    ['standard-webhooks, an empty copy folded after', 'standard-webhooks', 'msg_1,'],
    ['unsigned, folded with ", "', 'unsigned', 'msg_1, msg_2'],
  ] as const)('webhook-id: %s', (_label, scheme, folded) => {
    const rawHeaders = ['webhook-id', folded, 'webhook-timestamp', TS, 'webhook-signature', sign(folded)];
    expect(verify(rawHeaders, scheme)).toMatchObject({
      ...malformed,
      detail: 'header webhook-id appears more than once (folded into one line)',
    });
  });

  it('several space-separated signatures in one header stay a rotation list, not a duplicate', () => {
    const other = `v1,${Buffer.alloc(32, 1).toString('base64')}`;
    for (const list of [`${other} ${valid}`, `${valid} ${other}`, `v1a,AAAA ${valid}`, `${other}\t${valid}`])
      expect(verify(['webhook-id', 'msg_1', 'webhook-timestamp', TS, 'webhook-signature', list])).toMatchObject({
        ok: true,
      });
  });

  it('the baseline without the duplicate is ok (so the cases above fail for the duplicate alone)', () => {
    expect(verify(['webhook-id', 'msg_1', 'webhook-timestamp', TS, 'webhook-signature', valid])).toMatchObject({
      ok: true,
    });
  });
});

describe('WH-2 delivery ids', () => {
  const withId = (id: string): string[] => ['webhook-id', id, 'webhook-timestamp', TS, 'webhook-signature', sign(id)];

  it('256 characters is the longest accepted id', () => {
    expect(verify(withId('a'.repeat(256)))).toMatchObject({ ok: true, deliveryId: 'a'.repeat(256) });
  });

  it.each([
    ['257 characters', 'a'.repeat(257)],
    ['a "." (shifts the id.timestamp.body boundary)', `msg.${TS}`],
    ['a NUL', 'msg\u0000x'],
    ['a newline', 'msg\nx'],
    ['DEL', 'msg\u007fx'],
    ['a latin1 byte (two possible byte encodings)', 'msg\u00e9'],
  ])('a validly signed id with %s → 400', (_label, id) => {
    expect(verify(withId(id))).toMatchObject(malformed);
  });

  it.each(['standard-webhooks', 'unsigned'] as const)('%s: a missing or empty webhook-id → 400', (scheme) => {
    expect(verify(['webhook-timestamp', TS, 'webhook-signature', sign('')], scheme)).toMatchObject(malformed);
    expect(verify(['webhook-id', '', 'webhook-timestamp', TS, 'webhook-signature', sign('')], scheme)).toMatchObject(
      malformed,
    );
  });
});

describe('WH-4 / WH-5 a signed source never downgrades to unverified', () => {
  it.each([
    ['no signature header at all', ['webhook-id', 'msg_1', 'webhook-timestamp', TS]],
    ['a garbage signature', ['webhook-id', 'msg_1', 'webhook-timestamp', TS, 'webhook-signature', 'v1,garbage']],
    ['a GitHub-style signature instead', ['webhook-id', 'msg_1', 'x-hub-signature-256', `sha256=${'0'.repeat(64)}`]],
  ])('%s → 401, and no authState at all', (_label, rawHeaders) => {
    const result = verify(rawHeaders);
    expect(result).toMatchObject({ ok: false, status: 401 });
    expect(result).not.toHaveProperty('authState');
  });
});

describe('WH-5 explicitly unsigned sources', () => {
  it('accept with authState unverified and no key', () => {
    expect(verify(['webhook-id', 'msg_u'], 'unsigned')).toEqual({
      ok: true,
      authState: 'unverified',
      keyId: null,
      keyGeneration: null,
      deliveryId: 'msg_u',
      timestamp: null,
      eventTypeHeader: null,
    });
  });

  it('ignore signature headers: a sender cannot raise trust by signing, nor be refused for a bad one', () => {
    const rawHeaders = [
      'webhook-id',
      'msg_u',
      'webhook-timestamp',
      'not-a-time',
      'webhook-signature',
      'v1,x',
      'webhook-signature',
      'v1,y',
    ];
    expect(verify(rawHeaders, 'unsigned')).toMatchObject({ ok: true, authState: 'unverified', keyId: null });
    expect(
      verify(['webhook-id', 'msg_u', 'webhook-timestamp', TS, 'webhook-signature', sign('msg_u')], 'unsigned'),
    ).toMatchObject({
      authState: 'unverified',
      keyId: null,
      timestamp: null,
    });
  });

  it('still reject a duplicated delivery id', () => {
    expect(verify(['webhook-id', 'msg_u', 'webhook-id', 'msg_v'], 'unsigned')).toMatchObject(malformed);
  });

  it('an unknown scheme throws rather than falling through to unsigned', () => {
    expect(() => verify(['webhook-id', 'msg_u'], 'hmac-md5' as SourceScheme)).toThrow(TypeError);
  });
});
