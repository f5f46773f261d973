import { Inject, Injectable } from '@nestjs/common';
import { boundTriggerIds } from '../../projections/source-bindings/source-bindings.queries.js';
import { SQL_CLIENT, type SqlClient } from '../eventstore/sql/sql-client.js';

export interface BoundTrigger {
  triggerId: string;
}

/**
 * WH-6: which Triggers a delivery goes to comes from server-side configuration only, never from the
 * payload. Backed by the `source-bindings` read model, so a Trigger revision becomes visible here once
 * that projection has folded it (normally milliseconds after the write; the admission step re-reads
 * the Trigger's current revision anyway, AD-2).
 */
@Injectable()
export class TriggerBindings {
  constructor(@Inject(SQL_CLIENT) private readonly sql: SqlClient) {}

  /** Webhook Triggers of this tenant bound to sourceId whose eventTypes include eventType (an empty or absent list = every type); enabled or not, not deleted. */
  async forEvent(tenant: string, sourceId: string, eventType: string | null): Promise<BoundTrigger[]> {
    return (await boundTriggerIds(this.sql, tenant, sourceId, eventType)).map((triggerId) => ({ triggerId }));
  }
}
