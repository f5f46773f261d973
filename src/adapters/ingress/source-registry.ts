import { Inject, Injectable, Logger } from '@nestjs/common';
import { loadAggregate } from '../../commands/shared/aggregate.js';
import { sourceStream } from '../../domain/shared/ids.js';
import type { SourceDefinition } from '../../domain/source/source-definition.js';
import { activeKeys, isKeyRetired, sourceDecider } from '../../domain/source/source.js';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { SecretStore, SecretUnavailable } from '../sources/secret-store.js';

export interface IngressKey {
  keyId: string;
  generation: number;
  secret: string;
}

export interface IngressSource {
  tenant: string;
  sourceId: string;
  revision: number;
  definition: SourceDefinition;
  keys: IngressKey[];
}

interface RouteRow {
  tenant: string;
  key_id: string | null;
  ciphertext: string | null;
}

/** Read fresh per call so a retired key stops at once (WH-3); a secret row no event names is ignored. */
@Injectable()
export class SourceRegistry {
  private readonly logger = new Logger('SourceRegistry');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(SecretStore) private readonly secrets: SecretStore,
  ) {}

  async resolve(sourceId: string): Promise<IngressSource | null> {
    const route = await this.sql.query<RouteRow>(
      `SELECT r.tenant, s.key_id, s.ciphertext FROM ingress_routes r
         LEFT JOIN source_secrets s ON s.tenant = r.tenant AND s.source_id = r.source_id
        WHERE r.source_id = $1`,
      [sourceId],
    );
    const tenant = route.rows[0]?.tenant;
    if (tenant === undefined) return null;
    const { state } = await loadAggregate(this.store, sourceStream(tenant, sourceId), sourceDecider);
    // A route claimed by a creation that never committed its event: no source yet.
    if (state.status === 'absent') return null;
    const sealed = new Map(
      route.rows.filter((r) => r.key_id !== null && r.ciphertext !== null).map((r) => [r.key_id!, r.ciphertext!]),
    );
    const keys: IngressKey[] = [];
    for (const key of activeKeys(state).sort((a, b) => a.generation - b.generation)) {
      const secret = this.open(tenant, sourceId, key.keyId, sealed.get(key.keyId));
      if (secret !== null) keys.push({ keyId: key.keyId, generation: key.generation, secret });
    }
    return { tenant, sourceId, revision: state.revision, definition: state.definition, keys };
  }

  /** Fails closed (AD-2 key_revoked): a key or source that does not exist counts as retired. */
  async isKeyRetired(tenant: string, sourceId: string, keyId: string): Promise<boolean> {
    return isKeyRetired((await loadAggregate(this.store, sourceStream(tenant, sourceId), sourceDecider)).state, keyId);
  }

  /** A key whose secret cannot be opened is left out (its deliveries fail as signature_invalid) and logged by id only. */
  private open(tenant: string, sourceId: string, keyId: string, sealed: string | undefined): string | null {
    if (sealed === undefined) {
      this.logger.warn(`source ${sourceId}: key ${keyId} has no stored secret; it cannot authenticate deliveries`);
      return null;
    }
    try {
      return this.secrets.cipher.open({ tenant, sourceId, keyId }, sealed);
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      this.logger.warn(`source ${sourceId}: ${error.message}`);
      return null;
    }
  }
}
