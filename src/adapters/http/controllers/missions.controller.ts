import { Body, Controller, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { ReviseMissionCommand } from '../../../commands/revise-mission/revise-mission.command.js';
import { ReviseMissionDto } from '../../../commands/revise-mission/revise-mission.dto.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { loadAggregate } from '../../../commands/shared/aggregate.js';
import { missionDecider } from '../../../domain/mission/mission.js';
import { missionStream } from '../../../domain/shared/ids.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { problems } from '../problems/problem.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { marked, minPositionOf, type RawQuery } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, BodySchema, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { missionDefinitionSchema } from '../openapi/definition-schemas.js';

@ApiTags('missions')
@ApiBearerAuth()
@Controller('v1/missions')
export class MissionsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  @BodySchema(missionDefinitionSchema)
  @Answer(200, S.missionRevised)
  @Put(':missionId')
  @HttpCode(200)
  @RequireScope('missions:write')
  @Problems(
    [409, 'revision_conflict, mission_terminal, idempotency_key_conflict, idempotency_key_in_flight'],
    [422, 'invalid_definition'],
  )
  revise(
    @Ctx() context: CommandContext,
    @Param('missionId', ResourceId) missionId: string,
    @Body() body: ReviseMissionDto,
  ) {
    return this.commands.execute(new ReviseMissionCommand(context, missionId, body));
  }

  /** Read straight from the Mission's stream: definitions are small and must be current (`?minPosition`: the store's). */
  @ReadQuery()
  @Answer(200, S.missionView)
  @Get(':missionId')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async get(
    @Ctx() context: CommandContext,
    @Param('missionId', ResourceId) missionId: string,
    @Query() query: RawQuery,
  ) {
    const fresh = await this.runners.waitForStore(minPositionOf(query));
    const { state } = await loadAggregate(this.store, missionStream(context.tenant, missionId), missionDecider);
    if (state.status === 'absent') throw problems.notFound();
    return marked(
      { missionId, revision: state.revision, state: state.state, grants: state.grants, updatedAt: state.updatedAt },
      fresh,
    );
  }
}
