import { Body, Controller, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RecordOperationCommand } from '../../../commands/causality/record-operation.command.js';
import { RecordOperationDto } from '../../../commands/causality/record-operation.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

/** CA-2: the claim holder records an Operation whose correlated answer will link to its Occurrence. */
@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class OperationsController {
  constructor(private readonly commands: CommandBus) {}

  @Answer(201, S.operationRecorded)
  @Post('v1/executions/:executionId/operations')
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'fence_mismatch, operation_conflict, operation_limit, correlation_taken, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  record(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: RecordOperationDto,
  ) {
    const { sourceId, key } = body.correlation;
    return this.commands.execute(
      new RecordOperationCommand(context, executionId, body.fence, body.operationId, { sourceId, key }),
    );
  }
}
