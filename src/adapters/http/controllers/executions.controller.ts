import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ClaimExecutionCommand } from '../../../commands/claim-execution/claim-execution.command.js';
import { ClaimExecutionDto } from '../../../commands/claim-execution/claim-execution.dto.js';
import { ClaimNextExecutionCommand } from '../../../commands/claim-next-execution/claim-next-execution.command.js';
import { ClaimNextExecutionDto } from '../../../commands/claim-next-execution/claim-next-execution.dto.js';
import { CompleteExecutionCommand } from '../../../commands/complete-execution/complete-execution.command.js';
import { CompleteExecutionDto } from '../../../commands/complete-execution/complete-execution.dto.js';
import { SettleExecutionCommand } from '../../../commands/settle-execution/settle-execution.command.js';
import { SettleExecutionDto } from '../../../commands/settle-execution/settle-execution.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { executionStatusOf } from '../../../domain/execution/index.js';
import { loadExecution, requestView } from '../../../commands/shared/execution-transition.js';
import { executionStream } from '../../../domain/shared/ids.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { claimableExecutions } from '../../../projections/pending-executions/pending-executions.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { HttpResult } from '../http-result.js';
import { CLAIMABLE_WAITER, type ClaimableWaiter } from './claimable-waiter.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

/** Enough that racing consumers losing the oldest few still find one in the same read. */
const CLAIM_NEXT_CANDIDATES = 32;
/** The read model trails a wakeup, and other processes' appends wake nothing here: re-read at least this often. */
const CLAIM_NEXT_RECHECK_MS = 100;

/** EX-2/EX-3: consumers claim, complete and settle; operators read one execution's whole story. */
@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class ExecutionsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CLAIMABLE_WAITER) private readonly waiter: ClaimableWaiter,
  ) {}

  /**
   * EX-2 pull, long-polled: read the oldest claimable candidates, claim the first still claimable, else wait
   * and read again until `waitSeconds` pass (204).
   */
  @Post('v1/executions/claim-next')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems([409, 'idempotency_key_conflict, idempotency_key_in_flight'])
  async claimNext(@Ctx() context: CommandContext, @Body() body: ClaimNextExecutionDto) {
    const deadline = Date.now() + (body.waitSeconds ?? 0) * 1000;
    const filter = { missionId: body.missionId, triggerId: body.triggerId };
    for (;;) {
      const candidates = await claimableExecutions(this.sql, context.tenant, filter, CLAIM_NEXT_CANDIDATES);
      if (candidates.length > 0) {
        const claimed = await this.commands.execute(
          new ClaimNextExecutionCommand(context, body.consumerId, candidates),
        );
        if (claimed) return claimed;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return new HttpResult(204, undefined);
      await this.waiter.wait(context.tenant, Math.min(remaining, CLAIM_NEXT_RECHECK_MS));
    }
  }

  @Post('v1/executions/:executionId/claim')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'already_claimed, execution_noncommitted, execution_completed, execution_dead_lettered, not_pending, concurrency_limit, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  claim(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: ClaimExecutionDto,
  ) {
    return this.commands.execute(new ClaimExecutionCommand(context, executionId, body.consumerId));
  }

  @Post('v1/executions/:executionId/complete')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'fence_mismatch, execution_noncommitted, execution_completed, execution_dead_lettered, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  complete(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: CompleteExecutionDto,
  ) {
    return this.commands.execute(
      new CompleteExecutionCommand(
        context,
        executionId,
        body.fence,
        body.outcome,
        body.receipt,
        body.retryable ?? false,
        body.error ?? null,
      ),
    );
  }

  @Post('v1/executions/:executionId/settle')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems([404, 'not_found'], [409, 'idempotency_key_conflict, idempotency_key_in_flight'])
  settle(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: SettleExecutionDto,
  ) {
    return this.commands.execute(new SettleExecutionCommand(context, executionId, body.settlementId));
  }

  @Get('v1/operator/executions/:executionId')
  @RequireScope('operator:read')
  @Problems([404, 'not_found'])
  async get(@Ctx() context: CommandContext, @Param('executionId', ResourceId) executionId: string) {
    const { state, position } = await loadExecution(this.store, context.tenant, executionId);
    // Like the occurrence views, the operator view never shows the payload.
    const { input: _payload, ...request } = requestView(state.request);
    const history = (await this.store.readStream(executionStream(executionId))).map((e) => ({
      type: e.type,
      recordedAt: e.recordedAt,
      position: e.position,
      actor: e.metadata.actor ?? null,
    }));
    return {
      executionId,
      status: executionStatusOf(state),
      generation: state.generation,
      fence: state.fence === 0 ? null : state.fence,
      claim: state.status === 'claimed' ? { consumerId: state.consumerId, claimedAt: state.claimedAt } : null,
      completion: state.status === 'completed' ? state.completion : null,
      settlement:
        state.status === 'noncommitted'
          ? { decision: 'noncommitted', settlementId: state.settlementId, settledAt: state.settledAt }
          : null,
      ...request,
      position,
      history,
    };
  }
}
