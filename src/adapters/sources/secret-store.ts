import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { SecretOwner, SourceSecrets } from '../../domain/ports/source-secrets.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';

/** A stored secret that cannot be opened. The message never carries any part of the secret. */
export class SecretUnavailable extends Error {
  override readonly name = 'SecretUnavailable';
}

const PLAIN = 'plain:';
const SEALED = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM under a key derived with HKDF-SHA256 from REVEILLE_SECRET_KEY. Without that variable,
 * secrets are stored as `plain:<secret>`: convenient for development, and the README tells
 * production to set it. Plain rows stay readable after a key is configured, so turning encryption
 * on never breaks existing sources; keys added afterwards are sealed.
 */
export class SecretCipher {
  private readonly key: Buffer | null;

  constructor(secretKey: string | null) {
    this.key = secretKey
      ? Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), 'reveille/source-secrets', 'aes-256-gcm v1', 32))
      : null;
  }

  get encrypting(): boolean {
    return this.key !== null;
  }

  seal(owner: SecretOwner, secret: string): string {
    if (!this.key) return PLAIN + secret;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(aad(owner));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  open(owner: SecretOwner, sealed: string): string {
    if (sealed.startsWith(PLAIN)) return sealed.slice(PLAIN.length);
    if (!sealed.startsWith(SEALED)) throw new SecretUnavailable(`secret of key "${owner.keyId}" has an unknown format`);
    if (!this.key)
      throw new SecretUnavailable(`secret of key "${owner.keyId}" is encrypted and REVEILLE_SECRET_KEY is not set`);
    const raw = Buffer.from(sealed.slice(SEALED.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretUnavailable(`secret of key "${owner.keyId}" is truncated`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(owner));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnavailable(
        `secret of key "${owner.keyId}" does not open under the configured REVEILLE_SECRET_KEY`,
      );
    }
  }
}

const aad = (owner: SecretOwner): Buffer =>
  Buffer.from(JSON.stringify([owner.tenant, owner.sourceId, owner.keyId]), 'utf8');

/**
 * If another writer is adding the same key id right now, its row is younger than this and is left
 * alone; an older row that no event names is a leftover of a crash between the row and the event.
 */
const ABANDONED_AFTER_SECONDS = 60;

/** The `source_secrets` table (ARCHITECTURE decision 7): written before SourceKeyAdded, read by the ingress. */
@Injectable()
export class SecretStore implements SourceSecrets {
  readonly cipher: SecretCipher;

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
  ) {
    this.cipher = new SecretCipher(config.secretKey);
  }

  /**
   * Stores the sealed secret of a key no event names yet. Overwrites only our own row (same
   * ciphertext, a retry after a lost append race) or an abandoned one; false when another writer's
   * recent row holds the key id, so two racers can never leave one's secret under the other's event.
   */
  async put(owner: SecretOwner, generation: number, sealed: string): Promise<boolean> {
    const result = await this.sql.query(
      `INSERT INTO source_secrets AS s (tenant, source_id, key_id, generation, ciphertext, created_at) VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (tenant, source_id, key_id) DO UPDATE SET generation = EXCLUDED.generation, ciphertext = EXCLUDED.ciphertext, created_at = EXCLUDED.created_at
       WHERE s.ciphertext = EXCLUDED.ciphertext OR s.created_at < now() - make_interval(secs => ${ABANDONED_AFTER_SECONDS})
       RETURNING key_id`,
      [owner.tenant, owner.sourceId, owner.keyId, generation, sealed],
    );
    return result.rowCount > 0;
  }

  /** A retired key's secret has no further use; deleting it keeps the exposure small. */
  async remove(owner: SecretOwner): Promise<void> {
    await this.sql.query('DELETE FROM source_secrets WHERE tenant = $1 AND source_id = $2 AND key_id = $3', [
      owner.tenant,
      owner.sourceId,
      owner.keyId,
    ]);
  }
}
