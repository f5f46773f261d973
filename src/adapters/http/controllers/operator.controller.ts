import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { OCCURRENCES_PROJECTION } from '../../../projections/occurrences/occurrences.projection.js';
import {
  getOccurrence,
  listOccurrences,
  OCCURRENCE_STATUSES,
  type OccurrenceStatus,
} from '../../../projections/occurrences/occurrences.queries.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { IngressCounts, triggerIngress } from '../../ingress/ingress-counts.js';
import type { TriggerHealthRow } from '../../../projections/trigger-health/trigger-health.view.js';
import { SCHEDULES_PROJECTION } from '../../../projections/scheduler/schedules.projection.js';
import { POLLS_PROJECTION } from '../../../projections/poll/polls.projection.js';
import { TRIGGER_HEALTH_PROJECTION } from '../../../projections/trigger-health/trigger-health.projection.js';
import {
  getTriggerHealth,
  healthWithAuth,
  listTriggerHealth,
} from '../../../projections/trigger-health/trigger-health.queries.js';
import { RequireScope } from '../auth/auth.decorators.js';
import { problems } from '../problems/problem.js';
import { paged, type RawQuery, readParams } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, ReadQuery, ListQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

const OCCURRENCE_FILTERS = { ids: ['triggerId'], statuses: OCCURRENCE_STATUSES, reasons: true } as const;

/** OP-1/OP-2: read models only, scoped to the token's tenant; another tenant's row is a plain 404. */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator')
export class OperatorController {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    private readonly runners: ProjectionRunners,
    private readonly ingress: IngressCounts,
  ) {}

  @ListQuery()
  @Answer(200, S.triggerHealthPage)
  @Get('triggers')
  @RequireScope('operator:read')
  async listTriggers(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query);
    const fresh = await this.caughtUp(params.minPosition, [
      TRIGGER_HEALTH_PROJECTION,
      SCHEDULES_PROJECTION,
      POLLS_PROJECTION,
    ]);
    const page = await paged(() =>
      listTriggerHealth(this.sql, context.tenant, { limit: params.limit, cursor: params.cursor }),
    );
    const items = await this.withIngress(context.tenant, page.items);
    return fresh ? { ...page, items } : { ...page, items, stale: true };
  }

  @ReadQuery()
  @Answer(200, S.triggerHealthDetail)
  @Get('triggers/:triggerId')
  @RequireScope('operator:read')
  async getTrigger(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query);
    const fresh = await this.caughtUp(params.minPosition, [
      TRIGGER_HEALTH_PROJECTION,
      OCCURRENCES_PROJECTION,
      SCHEDULES_PROJECTION,
      POLLS_PROJECTION,
    ]);
    const found = await getTriggerHealth(this.sql, context.tenant, triggerId);
    if (!found) throw problems.notFound();
    const [detail] = await this.withIngress(context.tenant, [found]);
    return fresh ? detail : { ...detail, stale: true };
  }

  @ListQuery(OCCURRENCE_FILTERS)
  @Answer(200, S.occurrencePage)
  @Get('occurrences')
  @RequireScope('operator:read')
  async listOccurrences(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query, OCCURRENCE_FILTERS);
    const fresh = await this.caughtUp(params.minPosition, [OCCURRENCES_PROJECTION]);
    const { triggerId, reason, limit, cursor } = params;
    const status = params.status as OccurrenceStatus | undefined;
    const page = await paged(() =>
      listOccurrences(this.sql, context.tenant, { triggerId, status, reason, limit, cursor }),
    );
    return fresh ? page : { ...page, stale: true };
  }

  @ReadQuery()
  @Answer(200, S.occurrenceDetail)
  @Get('occurrences/:occurrenceId')
  @RequireScope('operator:read')
  async getOccurrence(
    @Ctx() context: CommandContext,
    @Param('occurrenceId', ResourceId) occurrenceId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query);
    const fresh = await this.caughtUp(params.minPosition, [OCCURRENCES_PROJECTION]);
    const occurrence = await getOccurrence(this.sql, context.tenant, occurrenceId);
    if (!occurrence) throw problems.notFound();
    return fresh ? occurrence : { ...occurrence, stale: true };
  }

  /** Read-your-writes: waits (≤ 2 s each, in parallel) until every read model behind the answer folded P. */
  /**
   * OP-1: what the log does not hold — the source's latest authentication outcome and the redeliveries
   * (which append nothing; added to the poll items seen again, which the log holds) — from the ingress counts,
   * this process's own written first; a failed authentication makes the row `failing`. Both Trigger routes come
   * through here, so they agree.
   */
  private async withIngress<R extends TriggerHealthRow>(tenant: string, rows: R[]) {
    await this.ingress.flush();
    const ingress = await triggerIngress(
      this.sql,
      tenant,
      rows.map((r) => r.triggerId),
    );
    return rows.map((row) => {
      const seen = ingress.get(row.triggerId);
      const auth = seen?.auth ?? null;
      const health = healthWithAuth(row.health, auth);
      return {
        ...row,
        health,
        auth,
        counts: { ...row.counts, duplicate: row.counts.duplicate + (seen?.duplicate ?? 0) },
      };
    });
  }

  private async caughtUp(minPosition: number | undefined, names: string[]): Promise<boolean> {
    const reached = await Promise.all(names.map((name) => this.runners.waitFor(name, minPosition)));
    return reached.every(Boolean);
  }
}
