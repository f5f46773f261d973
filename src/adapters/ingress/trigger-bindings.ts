import { Inject, Injectable, Optional } from '@nestjs/common';
import { boundTriggerIds } from '../../projections/source-bindings/source-bindings.queries.js';
import { SOURCE_BINDINGS_PROJECTION } from '../../projections/source-bindings/source-bindings.projection.js';
import { ProjectionRunners } from '../../projections/runner/projection-runners.js';
import { SQL_CLIENT, type SqlClient } from '../eventstore/sql/sql-client.js';

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
  private readonly entries = new Map<string, { at: number; triggers: Promise<BoundTrigger[]> }>();

  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Optional() runners?: ProjectionRunners,
  ) {
    runners?.runners.get(SOURCE_BINDINGS_PROJECTION)?.onFolded(() => this.entries.clear());
  }

  /** Webhook Triggers of this tenant bound to sourceId whose eventTypes include eventType (an empty or absent list = every type); enabled or not, not deleted. */
  forEvent(tenant: string, sourceId: string, eventType: string | null): Promise<BoundTrigger[]> {
    const key = JSON.stringify([tenant, sourceId, eventType]);
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < TTL_MS) return hit.triggers;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const triggers = boundTriggerIds(this.sql, tenant, sourceId, eventType).then((ids) => ids.map((triggerId) => ({ triggerId })));
    this.entries.set(key, { at: now, triggers });
    triggers.catch(() => this.entries.delete(key));
    return triggers;
  }
}
