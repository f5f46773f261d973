import { sign as githubSign } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { asciiLower } from './headers.js';
import { verifyDelivery, type SourceKey } from './verify.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const KEYS: SourceKey[] = [
  { keyId: 'k1', generation: 1, secret: `whsec_${Buffer.alloc(32, 0x61).toString('base64')}` },
  { keyId: 'k2', generation: 2, secret: `whsec_${Buffer.alloc(32, 0x62).toString('base64')}` },
];
const SIGNED = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

interface Delivery {
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

/** What verification may legitimately depend on: header names are case-insensitive, values OWS-trimmed. */
function normalized({ rawHeaders, body }: Delivery): string {
  const pairs: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    pairs.push(`${asciiLower(rawHeaders[i] as string)}:${(rawHeaders[i + 1] as string).trim()}`);
  return JSON.stringify([pairs.sort(), body.toString('hex')]);
}

type Mutation =
  | { kind: 'flipBodyByte'; index: number; mask: number }
  | { kind: 'appendBodyByte'; byte: number }
  | { kind: 'truncateBody'; cut: number }
  | { kind: 'replaceHeader'; header: number; value: string }
  | { kind: 'shiftTimestamp'; delta: number }
  | { kind: 'truncateSignature'; cut: number }
  | { kind: 'replaceSignatureChar'; index: number; char: string }
  | { kind: 'dropHeader'; header: number }
  | { kind: 'duplicateHeader'; header: number; value: string | null }
  | { kind: 'upperCaseNames' };

const headerIndex = fc.integer({ min: 0, max: SIGNED.length - 1 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flipBodyByte' as const), index: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('appendBodyByte' as const), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncateBody' as const), cut: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('replaceHeader' as const), header: headerIndex, value: fc.string({ maxLength: 60 }) }),
  fc.record({ kind: fc.constant('shiftTimestamp' as const), delta: fc.integer({ min: -299, max: 299 }) }),
  fc.record({ kind: fc.constant('truncateSignature' as const), cut: fc.integer({ min: 1, max: 50 }) }),
  fc.record({
    kind: fc.constant('replaceSignatureChar' as const),
    index: fc.nat(),
    char: fc.constantFrom(...'AZaz09+/=,v1 '.split('')),
  }),
  fc.record({ kind: fc.constant('dropHeader' as const), header: headerIndex }),
  fc.record({
    kind: fc.constant('duplicateHeader' as const),
    header: headerIndex,
    value: fc.option(fc.string({ maxLength: 20 })),
  }),
  fc.constant({ kind: 'upperCaseNames' as const }),
);

/** Index of the value of the first `name` header, or -1 once an earlier mutation dropped it. */
function position(rawHeaders: string[], name: string): number {
  const i = rawHeaders.findIndex((entry, k) => k % 2 === 0 && asciiLower(entry) === name);
  return i < 0 ? -1 : i + 1;
}

function mutate(original: Delivery, m: Mutation): Delivery {
  const rawHeaders = [...original.rawHeaders];
  let body = Buffer.from(original.body);
  const at = (name: string): number => position(rawHeaders, name);
  const headerMutations = [
    'replaceHeader',
    'shiftTimestamp',
    'truncateSignature',
    'replaceSignatureChar',
    'dropHeader',
  ];
  const target =
    m.kind === 'replaceHeader' || m.kind === 'dropHeader'
      ? (SIGNED[m.header] as string)
      : m.kind === 'shiftTimestamp'
        ? 'webhook-timestamp'
        : 'webhook-signature';
  if (headerMutations.includes(m.kind) && at(target) < 0) {
    // The header is already gone: re-adding it is the only way left to change it.
    if (m.kind === 'replaceHeader') rawHeaders.push(target, m.value);
    return { rawHeaders, body };
  }
  switch (m.kind) {
    case 'flipBodyByte':
      if (body.length === 0) body = Buffer.from([m.mask]);
      else body[m.index % body.length] ^= m.mask;
      break;
    case 'appendBodyByte':
      body = Buffer.concat([body, Buffer.from([m.byte])]);
      break;
    case 'truncateBody':
      body = body.subarray(0, Math.max(0, body.length - m.cut));
      break;
    case 'replaceHeader':
      rawHeaders[at(SIGNED[m.header] as string)] = m.value;
      break;
    case 'shiftTimestamp':
      rawHeaders[at('webhook-timestamp')] = String(Number(rawHeaders[at('webhook-timestamp')]) + m.delta);
      break;
    case 'truncateSignature': {
      const signature = rawHeaders[at('webhook-signature')] as string;
      rawHeaders[at('webhook-signature')] = signature.slice(0, Math.max(0, signature.length - m.cut));
      break;
    }
    case 'replaceSignatureChar': {
      const signature = rawHeaders[at('webhook-signature')] as string;
      const i = m.index % Math.max(1, signature.length);
      rawHeaders[at('webhook-signature')] = signature.slice(0, i) + m.char + signature.slice(i + 1);
      break;
    }
    case 'dropHeader':
      rawHeaders.splice(at(SIGNED[m.header] as string) - 1, 2);
      break;
    case 'duplicateHeader': {
      const name = SIGNED[m.header] as string;
      // Without an explicit value, repeat the current one; a header already dropped has none to repeat.
      const value = m.value ?? original.rawHeaders[position(original.rawHeaders, name)];
      if (value === undefined) break;
      rawHeaders.push(name.toUpperCase(), value);
      break;
    }
    case 'upperCaseNames':
      for (let i = 0; i < rawHeaders.length; i += 2) rawHeaders[i] = (rawHeaders[i] as string).toUpperCase();
      break;
  }
  return { rawHeaders, body };
}

const delivery = fc.record({
  id: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  body: fc.oneof(fc.json(), fc.string({ unit: 'grapheme', maxLength: 80 })),
  offset: fc.integer({ min: -300, max: 300 }),
  signer: fc.integer({ min: 0, max: KEYS.length - 1 }),
});

function signed(d: { id: string; body: string; offset: number; signer: number }): Delivery {
  const at = new Date(NOW.getTime() + d.offset * 1000);
  const signature = new Webhook((KEYS[d.signer] as SourceKey).secret).sign(d.id, at, d.body);
  return {
    rawHeaders: [
      'webhook-id',
      d.id,
      'webhook-timestamp',
      String(Math.floor(at.getTime() / 1000)),
      'webhook-signature',
      signature,
    ],
    body: Buffer.from(d.body, 'utf8'),
  };
}

const verifySw = (d: Delivery) =>
  verifyDelivery({ scheme: 'standard-webhooks', ...d, keys: KEYS, toleranceSeconds: 300, now: NOW });

describe('WH-2 / WH-4 property: mutations of a validly signed request never verify unless they are no-ops', () => {
  it('standard-webhooks: the unmutated request verifies under the key that signed it', () => {
    fc.assert(
      fc.property(delivery, (d) => {
        expect(verifySw(signed(d))).toMatchObject({
          ok: true,
          keyId: (KEYS[d.signer] as SourceKey).keyId,
          deliveryId: d.id,
        });
      }),
      { numRuns: 150 },
    );
  });

  it('standard-webhooks: any effective mutation is rejected, never downgraded', () => {
    fc.assert(
      fc.property(delivery, fc.array(mutation, { minLength: 1, maxLength: 3 }), (d, mutations) => {
        const original = signed(d);
        const mutated = mutations.reduce(mutate, original);
        const result = verifySw(mutated);
        if (normalized(mutated) === normalized(original)) expect(result.ok).toBe(true);
        else expect(result).toMatchObject({ ok: false, status: expect.any(Number) });
        expect(result).not.toHaveProperty('authState', 'unverified');
      }),
      { numRuns: 400 },
    );
  });

  it('github-hmac-sha256: flipping a body bit or a signature digit is rejected', async () => {
    const secret = 'property-github-secret';
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        async (text, i, j, flipBody) => {
          const body = Buffer.from(text, 'utf8');
          let signature = await githubSign(secret, text);
          if (flipBody) body[i % body.length] ^= 1 << (j % 8);
          else {
            const k = 7 + (i % 64);
            const digit = signature[k] as string;
            signature =
              signature.slice(0, k) +
              '0123456789abcdef'[(parseInt(digit, 16) + 1 + (j % 15)) % 16] +
              signature.slice(k + 1);
          }
          const result = verifyDelivery({
            scheme: 'github-hmac-sha256',
            rawHeaders: ['x-github-delivery', 'd-1', 'x-hub-signature-256', signature],
            body,
            keys: [{ keyId: 'g', generation: 1, secret }],
            toleranceSeconds: 300,
            now: NOW,
          });
          expect(result).toMatchObject({ ok: false, status: 401, code: 'signature_invalid' });
        },
      ),
      { numRuns: 150 },
    );
  });
});
