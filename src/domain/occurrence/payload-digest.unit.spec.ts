import { createHash } from 'node:crypto';
import { bodyDigest, payloadDigest } from './payload-digest.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('OC-4 / DD-1 payload digest: SHA-256 of canonical JSON of the parsed payload', () => {
  it('hashes the key-sorted compact form', () => {
    expect(payloadDigest({ b: [1, { d: 2, c: 3 }], a: 'é' })).toBe(sha256('{"a":"é","b":[1,{"c":3,"d":2}]}'));
  });

  it('a byte-different but equal redelivery has the same digest (duplicate, not conflict)', () => {
    const variants = [
      '{"type":"paid","name":"Zoé","n":1}',
      '{ "n": 1.0, "name": "Zo\\u00e9", "type": "paid" }\n',
      '{"name":"Zoé","type":"paid","n":10e-1}',
    ];
    const digests = variants.map((text) => payloadDigest(JSON.parse(text)));
    expect(new Set(digests).size).toBe(1);
    expect(new Set(variants.map((text) => bodyDigest(Buffer.from(text)))).size).toBe(variants.length);
  });

  const base = { type: 'paid', n: 1, tags: ['a', 'b'] };
  it.each([
    ['a changed value', { ...base, n: 2 }],
    ['a string instead of a number', { ...base, n: '1' }],
    ['an extra null member', { ...base, x: null }],
    ['array order', { ...base, tags: ['b', 'a'] }],
  ])('%s gives a different digest (payload_conflict)', (_label, other) => {
    expect(payloadDigest(other)).not.toBe(payloadDigest(base));
  });

  it('refuses values JSON cannot hold instead of digesting something arbitrary', () => {
    expect(() => payloadDigest({ n: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });
});

describe('OC-5 body digest: SHA-256 of the exact bytes', () => {
  it('matches the known empty-input vector', () => {
    expect(bodyDigest(Buffer.alloc(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('distinguishes bytes that decode to the same text (invalid UTF-8 vs U+FFFD)', () => {
    expect(bodyDigest(Buffer.from([0xff]))).not.toBe(bodyDigest(Buffer.from('\uFFFD', 'utf8')));
  });
});
