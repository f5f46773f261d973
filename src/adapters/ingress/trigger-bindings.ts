import { Inject, Injectable, Optional } from '@nestjs/common';
import { boundTriggerIds } from '../../projections/source-bindings/source-bindings.queries.js';
import { SOURCE_BINDINGS_PROJECTION } from '../../projections/source-bindings/source-bindings.projection.js';
import { ProjectionRunners } from '../runner/projection-runners.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { ExpiringCache } from './expiring-cache.js';

export interface BoundTrigger {
  triggerId: string;
}

const TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

/**
 * WH-6: which Triggers a delivery goes to comes from server-side configuration only, never from the
 * payload. Backed by the `source-bindings` read model and remembered for at most a second: dropped at
 * once whenever this process folds a change into that read model, so only a process that does not
 * run it (REVEILLE_BACKGROUND=off) can lag, by up to a second more than the read model itself. The
 * ingress then checks each Trigger's current definition, and admission its current revision (AD-2).
 */
@Injectable()
export class TriggerBindings {
  private readonly cache = new ExpiringCache<BoundTrigger[]>(TTL_MS, MAX_ENTRIES);

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Optional() runners?: ProjectionRunners,
  ) {
    runners?.runners.get(SOURCE_BINDINGS_PROJECTION)?.onFolded(() => this.cache.clear());
  }

  /** Webhook Triggers of this tenant bound to sourceId whose eventTypes include eventType (an empty or absent list = every type); enabled or not, not deleted. */
  forEvent(tenant: string, sourceId: string, eventType: string | null): Promise<BoundTrigger[]> {
    return this.cache.get(JSON.stringify([tenant, sourceId, eventType]), async () =>
      (await boundTriggerIds(this.sql, tenant, sourceId, eventType)).map((triggerId) => ({ triggerId })),
    );
  }
}
