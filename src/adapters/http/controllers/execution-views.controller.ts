import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { loadExecution, requestView } from '../../../commands/shared/execution-transition.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type ExecutionStatus, executionStatusOf, isOverdue } from '../../../domain/execution/index.js';
import type { EventStore } from '../../../domain/ports/event-store.js';
import { executionStream } from '../../../domain/shared/ids.js';
import { EXECUTIONS_PROJECTION } from '../../../projections/executions/executions.projection.js';
import {
  EXECUTION_STATUSES,
  listDeadLetters,
  listExecutions,
} from '../../../projections/executions/executions.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { historyOf } from './execution-history.js';
import { marked, minPositionOf, paged, type RawQuery, readParams } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, ReadQuery, ListQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

/** OP-1, EX-4, EX-5: what operators read about executions, scoped to the token's tenant. */
@ApiTags('operator')
@ApiBearerAuth()
@Controller()
export class ExecutionViewsController {
  constructor(
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  /** Newest admission first, from the `executions` read model; `?minPosition` waits for it (read-your-writes). */
  @ListQuery({ ids: ['missionId', 'triggerId'], statuses: EXECUTION_STATUSES })
  @Answer(200, S.executionPage)
  @Get('v1/executions')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'])
  async list(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query, { ids: ['missionId', 'triggerId'], statuses: EXECUTION_STATUSES });
    const fresh = await this.runners.waitFor(EXECUTIONS_PROJECTION, params.minPosition);
    const { limit, cursor, missionId, triggerId } = params;
    const status = params.status as ExecutionStatus | undefined;
    const page = await paged(() =>
      listExecutions(this.sql, context.tenant, { status, missionId, triggerId, limit, cursor }),
    );
    return fresh ? page : { ...page, stale: true };
  }

  /** EX-4: the executions only an operator's recovery delivers again. */
  @ListQuery({ ids: ['missionId', 'triggerId'] })
  @Answer(200, S.deadLetterPage)
  @Get('v1/operator/dead-letters')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'])
  async deadLetters(@Ctx() context: CommandContext, @Query() query: RawQuery) {
    const params = readParams(query, { ids: ['missionId', 'triggerId'] });
    const fresh = await this.runners.waitFor(EXECUTIONS_PROJECTION, params.minPosition);
    const { limit, cursor, missionId, triggerId } = params;
    const page = await paged(() => listDeadLetters(this.sql, context.tenant, { missionId, triggerId, limit, cursor }));
    return fresh ? page : { ...page, stale: true };
  }

  /**
   * Folded from the execution's own streams, so it is as fresh as the log: `?minPosition` waits for the store
   * only. Never the payload.
   */
  @ReadQuery()
  @Answer(200, S.executionDetail)
  @Get('v1/operator/executions/:executionId')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async get(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Query() query: RawQuery,
  ) {
    const fresh = await this.runners.waitForStore(minPositionOf(query));
    const { state, position } = await loadExecution(this.store, context.tenant, executionId);
    const [events, now] = await Promise.all([this.store.readStream(executionStream(executionId)), this.store.now()]);
    const { input: _payload, ...request } = requestView(state.request);
    return {
      executionId,
      status: executionStatusOf(state),
      attempt: state.attempt,
      generation: state.generation,
      ...request,
      fence: state.fence === 0 ? null : state.fence,
      claim:
        state.status === 'claimed' ? { consumerId: state.consumerId, fence: state.fence, at: state.claimedAt } : null,
      nextAttemptAt: state.status === 'retrying' ? state.nextAttemptAt : null,
      lastError: state.lastError,
      completion:
        state.status === 'completed'
          ? {
              fence: state.completion.fence,
              outcome: state.completion.outcome,
              receipt: state.completion.receipt,
              at: state.completion.completedAt,
            }
          : null,
      settlement:
        state.status === 'noncommitted'
          ? { decision: 'noncommitted', settlementId: state.settlementId, at: state.settledAt }
          : null,
      deadLetter:
        state.status === 'dead_lettered'
          ? { reason: state.reason, attempts: state.attempts, at: state.deadLetteredAt }
          : null,
      delivery: state.policy,
      // EX-5: shown, never acted on: a claim holds until completion or settlement.
      overdue: isOverdue(state, now.toISOString()),
      position,
      // The same fold as the state above (events appended since the state was read are left for the next read).
      history: historyOf(events.filter((e) => e.position <= position)),
      ...(fresh ? {} : { stale: true as const }),
    };
  }
}
