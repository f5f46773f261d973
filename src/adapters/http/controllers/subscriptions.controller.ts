import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { loadExecution } from '../../../commands/shared/execution-transition.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { RegisterSubscriptionCommand } from '../../../commands/register-subscription/register-subscription.command.js';
import { RegisterSubscriptionDto } from '../../../commands/register-subscription/register-subscription.dto.js';
import type { EventStore } from '../../../domain/ports/event-store.js';
import { cursorNumber, decodeCursor, encodeCursor } from '../../../projections/occurrences/cursor.js';
import { SQL_CLIENT, type SqlClient } from '../../../projections/sql-client.js';
import { SUBSCRIPTIONS_PROJECTION } from '../../../projections/subscriptions/subscriptions.projection.js';
import { subscriptionsOf } from '../../../projections/subscriptions/subscriptions.queries.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { Answer, ListQuery } from '../openapi/decorators.js';
import * as S from '../openapi/subscription-schemas.js';
import { paged, type RawQuery, readParams } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';

const CURSOR = 'subscriptions';

/**
 * SU-1: a claimed execution waits for an event. It registers with its fence; admission delivers the first
 * matching accepted event in acceptance order, or the deadline passes. Either resolution is a wakeup for the
 * execution (the wakeup stream, with `subscriptionId`), after which it reads this list.
 */
@ApiTags('executions')
@ApiBearerAuth()
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(SQL_CLIENT) private readonly sql: SqlClient,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  @Answer(201, S.subscriptionRegistered)
  @Post('v1/executions/:executionId/subscriptions')
  @HttpCode(201)
  @RequireScope('executions:write')
  @Problems(
    [404, 'not_found'],
    [
      409,
      'fence_mismatch, subscription_conflict, subscription_limit, idempotency_key_conflict, idempotency_key_in_flight',
    ],
  )
  register(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Body() body: RegisterSubscriptionDto,
  ) {
    return this.commands.execute(new RegisterSubscriptionCommand(context, executionId, body));
  }

  /** From the `subscriptions` read model in registration order; `?minPosition` waits for it (read-your-writes). */
  @ListQuery()
  @Answer(200, S.subscriptionPage)
  @Get('v1/executions/:executionId/subscriptions')
  // api.md: the Executions routes need executions:write, their lists operator:read; the worker may read its own.
  @RequireScope('executions:write', 'operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async list(
    @Ctx() context: CommandContext,
    @Param('executionId', ResourceId) executionId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query);
    await loadExecution(this.store, context.tenant, executionId);
    const fresh = await this.runners.waitFor(SUBSCRIPTIONS_PROJECTION, params.minPosition);
    const page = await paged(async () => {
      const after = params.cursor ? cursorNumber(decodeCursor(CURSOR, params.cursor, 1)[0]!, 'bigint') : '0';
      // One row more than the page: a cursor only when an item follows, as the other lists answer.
      const rows = await subscriptionsOf(this.sql, context.tenant, executionId, params.limit + 1, after);
      const items = rows.slice(0, params.limit);
      const last = items[items.length - 1];
      return {
        items,
        nextCursor: rows.length > params.limit && last ? encodeCursor(CURSOR, [String(last.position)]) : null,
      };
    });
    return fresh ? page : { ...page, stale: true };
  }
}
