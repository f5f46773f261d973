import { SecretCipher, SecretUnavailable } from './secret-store.js';

const owner = { tenant: 'acme', sourceId: 'gh', keyId: 'k1' };
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('source secrets at rest (decision 7 in docs/architecture.md, WH-3)', () => {
  describe('with REVEILLE_SECRET_KEY', () => {
    const cipher = new SecretCipher('a long random deployment key, 32+ bytes of it');

    it('seals with AES-256-GCM: no trace of the secret, a fresh IV each time, and opens again', () => {
      const sealed = cipher.seal(owner, SECRET);
      expect(sealed.startsWith('enc:v1:')).toBe(true);
      expect(sealed).not.toContain(SECRET);
      expect(sealed).not.toContain(SECRET.slice('whsec_'.length));
      expect(cipher.seal(owner, SECRET)).not.toBe(sealed);
      expect(cipher.open(owner, sealed)).toBe(SECRET);
    });

    it('binds the ciphertext to its tenant, source and key: a moved row does not open', () => {
      const sealed = cipher.seal(owner, SECRET);
      for (const other of [
        { ...owner, tenant: 'evil' },
        { ...owner, sourceId: 'other' },
        { ...owner, keyId: 'k2' },
      ]) {
        expect(() => cipher.open(other, sealed)).toThrow(SecretUnavailable);
      }
    });

    it('refuses a tampered or truncated ciphertext, and another deployment key, without echoing anything', () => {
      const sealed = cipher.seal(owner, SECRET);
      const raw = Buffer.from(sealed.slice('enc:v1:'.length), 'base64url');
      raw[raw.length - 1] ^= 1;
      expect(() => cipher.open(owner, `enc:v1:${raw.toString('base64url')}`)).toThrow(SecretUnavailable);
      expect(() => cipher.open(owner, 'enc:v1:AAAA')).toThrow(SecretUnavailable);
      expect(() => new SecretCipher('another key').open(owner, sealed)).toThrow(/does not open/);
      try {
        new SecretCipher('another key').open(owner, sealed);
      } catch (error) {
        expect((error as Error).message).not.toContain(SECRET);
      }
    });

    it('still reads rows stored before the key was configured', () =>
      expect(cipher.open(owner, `plain:${SECRET}`)).toBe(SECRET));
  });

  describe('without REVEILLE_SECRET_KEY (development only)', () => {
    const cipher = new SecretCipher(null);
    it('stores plain: secrets', () => {
      expect(cipher.encrypting).toBe(false);
      expect(cipher.seal(owner, SECRET)).toBe(`plain:${SECRET}`);
      expect(cipher.open(owner, `plain:${SECRET}`)).toBe(SECRET);
    });
    it('cannot open a sealed row, and says so without the secret', () => {
      const sealed = new SecretCipher('k').seal(owner, SECRET);
      expect(() => cipher.open(owner, sealed)).toThrow(
        'secret of key "k1" is encrypted and REVEILLE_SECRET_KEY is not set',
      );
    });
    it('refuses an unknown format', () => expect(() => cipher.open(owner, SECRET)).toThrow(SecretUnavailable));
  });
});
