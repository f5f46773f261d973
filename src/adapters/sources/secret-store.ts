import { Inject, Injectable } from '@nestjs/common';
import type { SecretOwner, SourceSecrets } from '../../domain/ports/source-secrets.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { SealingKey } from './sealing-key.js';

export { SecretUnavailable } from './sealing-key.js';

/** Source keys' secrets (WH-3): sealed for their tenant, source and key id. */
export class SecretCipher {
  private readonly box: SealingKey;

  constructor(secretKey: string | null) {
    this.box = new SealingKey(secretKey, 'reveille/source-secrets');
  }

  get encrypting(): boolean {
    return this.box.encrypting;
  }

  seal(owner: SecretOwner, secret: string): string {
    return this.box.seal(parts(owner), secret);
  }

  open(owner: SecretOwner, sealed: string): string {
    return this.box.open(parts(owner), sealed, `secret of key "${owner.keyId}"`);
  }
}

const parts = (owner: SecretOwner): string[] => [owner.tenant, owner.sourceId, owner.keyId];

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
