import { Inject, Injectable } from '@nestjs/common';
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
    private readonly runners: ProjectionRunners,
  ) {}

  async turnOf(tenant: string, lane: string, executionId: string, position: number): Promise<LaneTurn> {
    if (!(await this.runners.waitFor(PENDING_EXECUTIONS_PROJECTION, position))) return { now: false, after: null };
    const after = await laneAhead(this.sql, tenant, lane, executionId, position);
    return after === null ? { now: true } : { now: false, after };
  }
}
