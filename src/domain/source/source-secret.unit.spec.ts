import { generateSecret, parseSecret, SourceSecretError } from './source-secret.js';

const bytes = (n: number, fill = 7): Buffer => Buffer.alloc(n, fill);
const whsec = (key: Buffer): string => `whsec_${key.toString('base64')}`;

describe('WH-2 standard-webhooks secrets: whsec_ + base64 of at least 24 bytes', () => {
  it('decodes the key bytes', () => {
    const key = Buffer.from(Array.from({ length: 24 }, (_, i) => i * 11));
    const parsed = parseSecret('standard-webhooks', whsec(key));
    expect(parsed).toEqual({ ok: true, key });
  });

  it('accepts the unpadded form providers hand out', () => {
    const key = bytes(25);
    const unpadded = whsec(key).replace(/=+$/, '');
    expect(unpadded.endsWith('=')).toBe(false);
    expect(parseSecret('standard-webhooks', unpadded)).toEqual({ ok: true, key });
  });

  it('rejects a 23-byte key (too little entropy for HMAC-SHA256)', () => {
    expect(parseSecret('standard-webhooks', whsec(bytes(23)))).toMatchObject({ ok: false, code: 'secret_too_short' });
  });

  it.each([
    ['no prefix', bytes(32).toString('base64')],
    ['upper-case prefix', `WHSEC_${bytes(32).toString('base64')}`],
  ])('rejects a secret with %s', (_label, secret) => {
    expect(parseSecret('standard-webhooks', secret)).toMatchObject({ ok: false, code: 'secret_prefix_missing' });
  });

  it.each([
    ['base64url alphabet', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`],
    ['a pasted trailing newline', `${whsec(bytes(32))}\n`],
    [
      'embedded whitespace',
      `whsec_${bytes(32)
        .toString('base64')
        .replace(/^(.{8})/, '$1 ')}`,
    ],
    [
      'non-canonical trailing bits (two spellings of one key)',
      `whsec_${bytes(32).toString('base64').replace(/c=$/, 'd=')}`,
    ],
    ['nothing after the prefix', 'whsec_'],
  ])('rejects %s', (_label, secret) => {
    expect(parseSecret('standard-webhooks', secret)).toMatchObject({ ok: false, code: 'secret_encoding_invalid' });
  });

  it('rejects an unbounded key', () => {
    expect(parseSecret('standard-webhooks', whsec(bytes(4096)))).toMatchObject({ ok: false, code: 'secret_too_long' });
  });
});

describe('WH-2 github-hmac-sha256 secrets: literal UTF-8 string of at least 16 characters', () => {
  it('uses the UTF-8 bytes of the string as the key', () => {
    const secret = 'clé-secrète-longue';
    expect(parseSecret('github-hmac-sha256', secret)).toEqual({ ok: true, key: Buffer.from(secret, 'utf8') });
  });

  it('rejects 15 characters', () => {
    expect(parseSecret('github-hmac-sha256', 'a'.repeat(15))).toMatchObject({ ok: false, code: 'secret_too_short' });
  });

  it('counts characters, not UTF-16 units: 8 emoji are 8 characters, not 16', () => {
    expect(parseSecret('github-hmac-sha256', '🔑'.repeat(8))).toMatchObject({ ok: false, code: 'secret_too_short' });
    expect(parseSecret('github-hmac-sha256', '🔑'.repeat(16))).toMatchObject({ ok: true });
  });

  it.each([
    ['a trailing newline', `${'s'.repeat(20)}\n`],
    ['a NUL byte', `${'s'.repeat(10)}\u0000${'s'.repeat(10)}`],
    ['a lone surrogate (would be signed as U+FFFD)', `${'s'.repeat(20)}\ud800`],
  ])('rejects %s', (_label, secret) => {
    expect(parseSecret('github-hmac-sha256', secret)).toMatchObject({ ok: false, code: 'secret_encoding_invalid' });
  });
});

describe('WH-3 secrets never appear in errors', () => {
  it.each([
    ['standard-webhooks', `whsec_${bytes(16, 0x41).toString('base64')}`, 'QUFBQUFB'],
    ['standard-webhooks', `whsec_${bytes(32, 0x41).toString('base64url')}-`, 'QUFBQUFB'],
    ['github-hmac-sha256', 'ZQXJ-short', 'ZQXJ'],
    ['github-hmac-sha256', 'ZQXJ-long-enough-but-pasted\n', 'ZQXJ'],
  ] as const)('%s: %j', (scheme, secret, marker) => {
    const parsed = parseSecret(scheme, secret);
    expect(parsed.ok).toBe(false);
    expect(JSON.stringify(parsed)).not.toContain(marker);
  });

  it('rejects non-string secrets and the unsigned scheme', () => {
    expect(parseSecret('github-hmac-sha256', 12345678901234567890)).toMatchObject({
      ok: false,
      code: 'secret_not_string',
    });
    expect(parseSecret('unsigned', 'x'.repeat(40))).toMatchObject({ ok: false, code: 'scheme_has_no_secret' });
  });
});

describe('WH-3 generateSecret', () => {
  const random = Buffer.from(Array.from({ length: 40 }, (_, i) => (i * 37 + 3) & 0xff));

  it('standard-webhooks: whsec_ + base64 of the first 32 random bytes, and it parses back', () => {
    const secret = generateSecret('standard-webhooks', random);
    expect(secret).toBe(`whsec_${random.subarray(0, 32).toString('base64')}`);
    expect(parseSecret('standard-webhooks', secret)).toEqual({ ok: true, key: random.subarray(0, 32) });
  });

  it('github: a 43-character base64url string that parses back', () => {
    const secret = generateSecret('github-hmac-sha256', random);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toEqual(random.subarray(0, 32));
    expect(parseSecret('github-hmac-sha256', secret)).toMatchObject({ ok: true });
  });

  it('different randomness gives a different secret', () => {
    expect(generateSecret('standard-webhooks', bytes(32, 1))).not.toBe(
      generateSecret('standard-webhooks', bytes(32, 2)),
    );
  });

  it('refuses too little randomness and the unsigned scheme with typed errors', () => {
    expect(() => generateSecret('standard-webhooks', bytes(31))).toThrow(SourceSecretError);
    try {
      generateSecret('github-hmac-sha256', bytes(8));
      throw new Error('expected a throw');
    } catch (error) {
      expect(error).toBeInstanceOf(SourceSecretError);
      expect((error as SourceSecretError).code).toBe('random_bytes_too_short');
    }
    expect(() => generateSecret('unsigned', bytes(32))).toThrow(
      expect.objectContaining({ code: 'scheme_has_no_secret' }),
    );
  });
});
