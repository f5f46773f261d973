import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ClaimExecutionCommand, type ClaimResult } from '../../../commands/claim-execution/claim-execution.command.js';
import { CommandRejected } from '../../../domain/shared/errors.js';
import { claimedBy } from '../../../projections/executions/executions.queries.js';
import { ClaimExecutionDto } from '../../../commands/claim-execution/claim-execution.dto.js';
import { ClaimNextExecutionCommand } from '../../../commands/claim-next-execution/claim-next-execution.command.js';
import { ClaimNextExecutionDto } from '../../../commands/claim-next-execution/claim-next-execution.dto.js';
import { CompleteExecutionCommand } from '../../../commands/complete-execution/complete-execution.command.js';
import { CompleteExecutionDto } from '../../../commands/complete-execution/complete-execution.dto.js';
import { SettleExecutionCommand } from '../../../commands/settle-execution/settle-execution.command.js';
import { SettleExecutionDto } from '../../../commands/settle-execution/settle-execution.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { claimableExecutions } from '../../../projections/pending-executions/pending-executions.queries.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { HttpResult } from '../http-result.js';
import { CLAIMABLE_WAITER, type ClaimableWaiter } from './claimable-waiter.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

/** Enough that racing consumers losing the oldest few still find one in the same read. */
const CLAIM_NEXT_CANDIDATES = 32;
/** Other processes' folds of the read model wake nothing here: re-read at least this often. */
const CLAIM_NEXT_RECHECK_MS = 100;

/** EX-2/EX-3: consumers claim, complete and settle (operators read executions in ExecutionViewsController). */
/** A consumer rarely holds more than its concurrency; its own earlier claim is among the newest. */
const OWN_CLAIMS_LOOKED_AT = 50;

@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class ExecutionsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(CLAIMABLE_WAITER) private readonly waiter: ClaimableWaiter,
  ) {}

  /**
   * EX-2 pull, long-polled: read the oldest claimable candidates, claim the first still claimable, else wait
   * and read again until `waitSeconds` pass (204).
   */
  @Answer(200, S.claimBody)
  @Answer(204, undefined, 'nothing became claimable within waitSeconds')
  @Post('v1/executions/claim-next')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems([409, 'idempotency_key_conflict, idempotency_key_in_flight'])
  async claimNext(@Ctx() context: CommandContext, @Body() body: ClaimNextExecutionDto) {
    const deadline = Date.now() + (body.waitSeconds ?? 0) * 1000;
    const query = { tenant: context.tenant, missionId: body.missionId, triggerId: body.triggerId };
    if (context.idempotency?.takenOver) {
      const own = await this.ownEarlierClaim(context, body.consumerId);
      if (own) return own;
    }
    // A request's own first read passes nothing on: parked polls were woken by the fold that brought the work.
    for (let looksFirst = false; ;) {
      // Noted before the read: a fold while it runs must end the wait after it at once.
      let mark = this.waiter.mark();
      const candidates = await claimableExecutions(this.sql, context.tenant, query, CLAIM_NEXT_CANDIDATES);
      if (candidates.length > 0) {
        if (looksFirst) this.waiter.relay(query, candidates.length - 1);
        const claimed = await this.commands.execute(
          new ClaimNextExecutionCommand(context, body.consumerId, candidates),
        );
        if (claimed) return claimed;
        // Others took them all: the folds meanwhile were most likely their claims, and reading again at once for
        // each one kept every loser spinning over the same few rows. Waits for the next fold instead.
        mark = this.waiter.mark();
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return new HttpResult(204, undefined);
      looksFirst = await this.waiter.wait(query, Math.min(remaining, CLAIM_NEXT_RECHECK_MS), mark);
    }
  }

  /**
   * SEC-3: a retry that took its key over from a run that died may find that run's claim already committed; it
   * is no longer a candidate, so it is looked for among what this consumer holds, and answered again (the claim's
   * own-write check) instead of claiming a second execution.
   */
  private async ownEarlierClaim(context: CommandContext, consumerId: string): Promise<ClaimResult | null> {
    for (const { executionId } of await claimedBy(this.sql, context.tenant, consumerId, OWN_CLAIMS_LOOKED_AT)) {
      try {
        return await this.commands.execute(new ClaimExecutionCommand(context, executionId, consumerId));
      } catch (error) {
        if (!(error instanceof CommandRejected)) throw error; // another request's claim: not ours
      }
    }
    return null;
  }

  @Answer(200, S.claimBody)
  @Post('v1/executions/:executionId/claim')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'already_claimed, execution_noncommitted, execution_completed, execution_dead_lettered, not_pending, concurrency_limit, lane_busy, claim_refused, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  claim(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: ClaimExecutionDto,
  ) {
    return this.commands.execute(new ClaimExecutionCommand(context, executionId, body.consumerId));
  }

  @Answer(200, S.completed)
  @Post('v1/executions/:executionId/complete')
  @HttpCode(200)
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'fence_mismatch, execution_noncommitted, execution_completed, idempotency_key_conflict, idempotency_key_in_flight',
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

  @Answer(200, S.settled)
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
}
