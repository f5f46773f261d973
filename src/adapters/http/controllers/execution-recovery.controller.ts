import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RecoverExecutionCommand } from '../../../commands/recover-execution/recover-execution.command.js';
import { RecoverExecutionDto } from '../../../commands/recover-execution/recover-execution.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

/** EX-4: the operator's audited recovery of a dead-lettered, failed or noncommitted execution. */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator/executions')
export class ExecutionRecoveryController {
  constructor(private readonly commands: CommandBus) {}

  /**
   * 202: delivered again under the same execution id, `pending`. The idempotency interceptor has already
   * required and validated the key (a replay never reaches here), so it is recorded as given.
   */
  @Answer(202, S.recovered)
  @Post(':executionId/recover')
  @HttpCode(202)
  @RequireScope('operator:recover')
  @ApiAcceptedResponse({ description: '{ executionId, generation, status: "pending", position }' })
  @Problems(
    [404, 'not_found'],
    [
      409,
      'settlement_required, recovery_refused (with the AD-3 `reason`), not_recoverable, execution_completed, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  recover(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Headers('idempotency-key') key: string,
    @Body() body: RecoverExecutionDto,
  ) {
    return this.commands.execute(new RecoverExecutionCommand(context, executionId, body.reason, key));
  }
}
