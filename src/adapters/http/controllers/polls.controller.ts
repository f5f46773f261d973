import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { isPollTrigger, loadPollState } from '../../../commands/poll/record-poll.js';
import { SetPollCursorCommand } from '../../../commands/poll/set-poll-cursor.command.js';
import { SetPollCursorDto } from '../../../commands/poll/set-poll-cursor.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { currentTrigger } from '../../../commands/shared/lookups.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { type PollHeld, pollStateFor, secretOf } from '../../../domain/poll/poll-events.js';
import { cursorFor, failuresFor } from '../../../domain/poll/poll.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Problem, problems } from '../problems/problem.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';

const item = ({ itemId, index, reason, at }: PollHeld) => ({
  ...(itemId === null ? {} : { itemId }),
  index,
  reason,
  at,
});

/** PO-1: the operator's view of a poll Trigger's cursor and polls, and the audited cursor override. */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('v1/operator/triggers')
export class PollsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** Read from the poll stream's last event, which carries the whole state: never behind a read model. */
  @Answer(200, S.pollView)
  @Get(':triggerId/poll')
  @RequireScope('operator:read')
  @Problems([404, 'not_found'], [409, 'trigger_not_poll'])
  async poll(@Ctx() context: CommandContext, @Param('triggerId', ResourceId) triggerId: string) {
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent') throw problems.notFound();
    if (!isPollTrigger(trigger))
      throw new Problem(
        409,
        'trigger_not_poll',
        'Not a poll Trigger',
        `Trigger ${triggerId} is a ${trigger.definition.type} Trigger.`,
      );
    // The Trigger's current life (a deleted one: its last life, history stays); a re-created Trigger starts fresh.
    const state = pollStateFor(
      (await loadPollState(this.store, context.tenant, triggerId)).state,
      trigger.createdRevision,
    );
    return {
      triggerId,
      cursor: cursorFor(state, trigger.definition.poll.url),
      lastPollAt: state.lastPollAt,
      lastResult: state.lastResult,
      // a revision to another url is a new binding: the old one's failures are not its own (as its cursor is not)
      consecutiveFailures: failuresFor(state, trigger.definition.poll.url),
      ...(state.lastError ? { lastError: state.lastError } : {}),
      ...(state.held ? { held: item(state.held) } : {}),
      quarantined: state.quarantined.map(item),
      // decision 7: when it was set, never the secret or where it is kept
      secretSetAt: secretOf(state)?.setAt ?? null,
    };
  }

  /** The idempotency interceptor has already required and validated the key (a replay never reaches here). */
  @Answer(200, S.pollCursorSet)
  @Put(':triggerId/poll-cursor')
  @HttpCode(200)
  @RequireScope('operator:recover')
  @Problems([404, 'not_found'], [409, 'trigger_not_poll, idempotency_key_conflict, idempotency_key_in_flight'])
  setCursor(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Headers('idempotency-key') key: string,
    @Body() body: SetPollCursorDto,
  ) {
    return this.commands.execute(new SetPollCursorCommand(context, triggerId, body.cursor, body.reason, key));
  }
}
