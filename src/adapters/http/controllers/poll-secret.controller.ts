import { Body, Controller, HttpCode, Inject, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { SetPollSecretCommand } from '../../../commands/poll/set-poll-secret.command.js';
import { SetPollSecretDto } from '../../../commands/poll/set-poll-secret.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { pollSoonIfFailing } from '../../../projections/poll/poll-due.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

/**
 * A poll Trigger's bearer secret (`poll.auth`, decision 7): write-only. No answer, stored idempotent answer, event,
 * view or log line ever holds it; the poll view says when it was set.
 */
@ApiTags('triggers')
@ApiBearerAuth()
@Controller('v1/triggers')
export class PollSecretController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
  ) {}

  @Answer(200, S.pollSecretSet, 'sealed and recorded; the next poll sends it')
  @Put(':triggerId/poll-secret')
  @HttpCode(200)
  @RequireScope('triggers:write')
  @Problems([404, 'not_found'], [409, 'trigger_not_poll, idempotency_key_conflict, idempotency_key_in_flight'])
  async set(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Body() body: SetPollSecretDto,
  ) {
    const result = await this.commands.execute(new SetPollSecretCommand(context, triggerId, body.secret));
    await pollSoonIfFailing(this.sql, { tenant: context.tenant, triggerId });
    return result;
  }
}
