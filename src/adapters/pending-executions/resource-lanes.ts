import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE } from '../../commands/shared/tokens.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import type { LaneTurn, ResourceLanes } from '../../domain/ports/resource-lanes.js';
import { PENDING_EXECUTIONS_PROJECTION } from '../../projections/pending-executions/pending-executions.projection.js';
import { laneAhead } from '../../projections/pending-executions/pending-executions.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../projections/sql-client.js';
import { ProjectionRunners } from '../runner/projection-runners.js';

/** AD-5: the lanes' queues are the pending-executions read model's, read once it holds the claimed execution's log. */
@Injectable()
export class ResourceLaneQueues implements ResourceLanes {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  /**
   * Older executions of the lane were admitted before `position`, so once the queue holds it, one it shows ended has
   * ended. One it shows live may have ended since: asked again once the queue holds the log as of now, so a claim
   * right after the lane's head completed is not refused because the fold trailed.
   */
  async turnOf(tenant: string, lane: string, executionId: string, position: number): Promise<LaneTurn> {
    if (!(await this.runners.waitFor(PENDING_EXECUTIONS_PROJECTION, position))) return { now: false, after: null };
    let after = await laneAhead(this.sql, tenant, lane, executionId, position);
    if (after === null) return { now: true };
    const head = await this.store.headPosition();
    if (head !== position && (await this.runners.waitFor(PENDING_EXECUTIONS_PROJECTION, head)))
      after = await laneAhead(this.sql, tenant, lane, executionId, position);
    return after === null ? { now: true } : { now: false, after };
  }
}
