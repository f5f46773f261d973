import { Inject, Injectable } from '@nestjs/common';
import type { PollSecretOwner, PollSecrets } from '../../domain/ports/poll-secrets.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import type { ReveilleConfig } from '../config/config.js';
import { CONFIG } from '../config/config.token.js';
import { SealingKey, SecretUnavailable } from '../sources/sealing-key.js';

/**
 * A row younger than this may belong to a set still on its way to appending the event that names it; an older
 * row no event names is a crash leftover or a replaced secret.
 */
const IN_FLIGHT_SECONDS = 60;

const parts = (owner: PollSecretOwner): string[] => ['poll', owner.tenant, owner.triggerId, owner.secretId];

/** Decision 7 for poll Triggers: written before `PollSecretSet`, read by the poller, never logged. */
@Injectable()
export class PollSecretStore implements PollSecrets {
  private readonly box: SealingKey;

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CONFIG) config: Pick<ReveilleConfig, 'secretKey'>,
  ) {
    this.box = new SealingKey(config.secretKey, 'reveille/poll-secrets');
  }

  async put(owner: PollSecretOwner, secret: string): Promise<void> {
    // A retried set of the same request seals the same secret under the same id again: the row is replaced.
    await this.sql.query(
      `INSERT INTO poll_secrets AS s (tenant, trigger_id, secret_id, ciphertext, created_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (tenant, trigger_id, secret_id) DO UPDATE SET ciphertext = EXCLUDED.ciphertext`,
      [owner.tenant, owner.triggerId, owner.secretId, this.box.seal(parts(owner), secret)],
    );
  }

  async open(owner: PollSecretOwner): Promise<string | null> {
    const { rows } = await this.sql.query<{ ciphertext: string }>({
      name: 'reveille_poll_secret',
      text: 'SELECT ciphertext FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2 AND secret_id = $3',
      values: [owner.tenant, owner.triggerId, owner.secretId],
    });
    const sealed = rows[0]?.ciphertext;
    if (sealed === undefined) return null;
    try {
      return this.box.open(parts(owner), sealed, 'the poll secret');
    } catch (error) {
      if (error instanceof SecretUnavailable) return null;
      throw error;
    }
  }

  async prune(keep: PollSecretOwner, replaced: string | null): Promise<void> {
    await this.sql.query(
      `DELETE FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2 AND secret_id <> $3
          AND (secret_id = $4 OR created_at < now() - make_interval(secs => ${IN_FLIGHT_SECONDS}))`,
      [keep.tenant, keep.triggerId, keep.secretId, replaced],
    );
  }

  async forget(trigger: { tenant: string; triggerId: string }, deletedAt: string): Promise<void> {
    await this.sql.query(
      'DELETE FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2 AND created_at <= $3::timestamptz',
      [trigger.tenant, trigger.triggerId, deletedAt],
    );
  }
}
