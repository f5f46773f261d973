import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CLOCK } from '../../../commands/shared/tokens.js';
import { type Clock } from '../../../domain/ports/clock.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { DecideHeldInstantsCommand } from '../../../commands/scheduler/decide-held-instants.command.js';
import { DecideHeldInstantsDto } from '../../../commands/scheduler/decide-held-instants.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { currentTrigger } from '../../../commands/shared/lookups.js';
import { compareTzdata } from '../../../domain/schedule/tzdata.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { WithoutIdempotencyKey } from '../idempotency/idempotency.decorators.js';
import { Problem, problems } from '../problems/problem.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { marked, minPositionOf } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { MAX_PREVIEW_COUNT, preview, previewWindow, readPreviewBody } from './schedule-preview.js';
import { Answer, BodySchema, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { previewBodySchema } from '../openapi/definition-schemas.js';

/** Schedule previews (SC-2) and the operator's held-range decisions (SC-5). */
@ApiTags('schedules')
@ApiBearerAuth()
@Controller('v1')
export class SchedulesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runners: ProjectionRunners,
  ) {}

  /** Pure computation, nothing stored: no Idempotency-Key. */
  @BodySchema(previewBodySchema)
  @Answer(200, S.schedulePreview)
  @Problems([422, 'invalid_definition'])
  @Post('schedules/preview')
  @HttpCode(200)
  @WithoutIdempotencyKey()
  @RequireScope('operator:read')
  async preview(@Body() body: unknown) {
    const { schedule, after, count } = readPreviewBody(body);
    return preview(schedule, after === null ? await this.clock.now() : new Date(after), count);
  }

  /** The stored revision's instants, with its pinned tz data beside the one computing them (SC-7). */
  @ApiQuery({ name: 'after', required: false, schema: { type: 'string', format: 'date-time' } })
  @ApiQuery({
    name: 'count',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PREVIEW_COUNT, default: 20 },
  })
  @ReadQuery()
  @Answer(200, S.storedInstants)
  @Problems([409, 'trigger_not_schedule'])
  @Get('triggers/:triggerId/schedule/instants')
  @RequireScope('operator:read')
  async instants(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const window = previewWindow(query.after, query.count, '?');
    const fresh = await this.runners.waitForStore(minPositionOf(query));
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw problems.notFound();
    const schedule = trigger.definition.schedule;
    if (trigger.definition.type !== 'schedule' || schedule === null) {
      throw new Problem(
        409,
        'trigger_not_schedule',
        'Not a schedule Trigger',
        `Trigger ${triggerId} is a ${trigger.definition.type} Trigger.`,
      );
    }
    const answer = preview(
      schedule,
      window.after === null ? await this.clock.now() : new Date(window.after),
      window.count,
    );
    const pinned = trigger.pins?.tzdataVersion ?? null;
    return marked(
      {
        ...answer,
        triggerId,
        revision: trigger.revision,
        pinnedTzdataVersion: pinned,
        tzdataDrift: compareTzdata(pinned, answer.tzdataVersion).drift,
      },
      fresh,
    );
  }

  @Answer(200, S.heldDecided)
  @Post('operator/triggers/:triggerId/schedule/release')
  @HttpCode(200)
  @RequireScope('operator:recover')
  release(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Body() body: DecideHeldInstantsDto,
  ) {
    return this.commands.execute(new DecideHeldInstantsCommand(context, triggerId, 'release', body.reason));
  }

  @Answer(200, S.heldDecided)
  @Post('operator/triggers/:triggerId/schedule/dismiss')
  @HttpCode(200)
  @RequireScope('operator:recover')
  dismiss(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Body() body: DecideHeldInstantsDto,
  ) {
    return this.commands.execute(new DecideHeldInstantsCommand(context, triggerId, 'dismiss', body.reason));
  }
}
