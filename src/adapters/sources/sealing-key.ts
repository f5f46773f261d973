import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A stored secret that cannot be opened. The message never carries any part of the secret. */
export class SecretUnavailable extends Error {
  override readonly name = 'SecretUnavailable';
}

const PLAIN = 'plain:';
const SEALED = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM under a key derived from REVEILLE_SECRET_KEY for one purpose (the HKDF salt), so a source key's row
 * never opens as a poll secret; the owner's names are the associated data, so a row never opens for another owner.
 * `plain:` rows stay readable once REVEILLE_SECRET_KEY is set, so turning encryption on never breaks a secret.
 */
export class SealingKey {
  private readonly key: Buffer | null;

  constructor(secretKey: string | null, purpose: string) {
    this.key = secretKey
      ? Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), purpose, 'aes-256-gcm v1', 32))
      : null;
  }

  get encrypting(): boolean {
    return this.key !== null;
  }

  seal(owner: readonly string[], secret: string): string {
    if (!this.key) return PLAIN + secret;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(owner));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** `what` names the secret in errors ("secret of key …"). */
  open(owner: readonly string[], sealed: string, what: string): string {
    if (sealed.startsWith(PLAIN)) return sealed.slice(PLAIN.length);
    if (!sealed.startsWith(SEALED)) throw new SecretUnavailable(`${what} has an unknown format`);
    if (!this.key) throw new SecretUnavailable(`${what} is encrypted and REVEILLE_SECRET_KEY is not set`);
    const raw = Buffer.from(sealed.slice(SEALED.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretUnavailable(`${what} is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(owner));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnavailable(`${what} does not open under the configured REVEILLE_SECRET_KEY`);
    }
  }
}

const aad = (owner: readonly string[]): Buffer => Buffer.from(JSON.stringify(owner), 'utf8');
