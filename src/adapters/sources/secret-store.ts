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

/** `plain:` rows stay readable once REVEILLE_SECRET_KEY is set, so turning encryption on never breaks a source. */
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

/** A younger row may be another writer adding the same key id right now; an older unnamed one is a crash leftover. */
const ABANDONED_AFTER_SECONDS = 60;

/** Written before SourceKeyAdded (decision 7, docs/architecture.md), read by the ingress. */
@Injectable()
export class SecretStore implements SourceSecrets {
  readonly cipher: SecretCipher;

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CONFIG) config: ReveilleConfig,
  ) {
    this.cipher = new SecretCipher(config.secretKey);
  }

  /** Overwrites only our own row (a retry) or an abandoned one: never one racer's secret under another's event. */
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
