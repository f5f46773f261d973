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
 * WH-6: the Triggers come from server-side configuration only, never from the payload. Remembered for
 * at most a second and dropped when this process folds a change, so only a process with
 * REVEILLE_BACKGROUND=off can lag; admission re-checks the current revision (AD-2).
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

  forgetAll(): void {
    this.cache.clear();
  }

  /** One lookup read again on its next use: a "none bound" answer that may predate a fold elsewhere. */
  forget(tenant: string, sourceId: string, eventType: string | null): void {
    this.cache.forget(cacheKey(tenant, sourceId, eventType));
  }

  forEvent(tenant: string, sourceId: string, eventType: string | null): Promise<BoundTrigger[]> {
    return this.cache.get(cacheKey(tenant, sourceId, eventType), async () =>
      (await boundTriggerIds(this.sql, tenant, sourceId, eventType)).map((triggerId) => ({ triggerId })),
    );
  }
}

function cacheKey(tenant: string, sourceId: string, eventType: string | null): string {
  return JSON.stringify([tenant, sourceId, eventType]);
}
