import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { AddSourceKeyCommand } from '../../../commands/add-source-key/add-source-key.command.js';
import { AddSourceKeyDto } from '../../../commands/add-source-key/add-source-key.dto.js';
import { RetireSourceKeyCommand } from '../../../commands/retire-source-key/retire-source-key.command.js';
import { ReviseSourceCommand } from '../../../commands/revise-source/revise-source.command.js';
import { ReviseSourceDto } from '../../../commands/revise-source/revise-source.dto.js';
import { loadAggregate } from '../../../commands/shared/aggregate.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { sourceStream } from '../../../domain/shared/ids.js';
import { sourceDecider } from '../../../domain/source/source.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { RedactOnReplay } from '../idempotency/idempotency.decorators.js';
import { problems } from '../problems/problem.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { marked, minPositionOf, type RawQuery } from './read-params.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, BodySchema, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { sourceDefinitionSchema } from '../openapi/definition-schemas.js';

/** WH-3: no response but key creation ever holds a secret. */
@ApiTags('sources')
@ApiBearerAuth()
@Controller('v1/sources')
export class SourcesController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runners: ProjectionRunners,
  ) {}

  @BodySchema(sourceDefinitionSchema)
  @Answer(200, S.sourceRevised)
  @Put(':sourceId')
  @Problems(
    [409, 'revision_conflict, source_id_unavailable, idempotency_key_conflict, idempotency_key_in_flight'],
    [422, 'invalid_definition'],
  )
  @HttpCode(200)
  @RequireScope('sources:write')
  revise(
    @Ctx() context: CommandContext,
    @Param('sourceId', ResourceId) sourceId: string,
    @Body() body: ReviseSourceDto,
  ) {
    return this.commands.execute(new ReviseSourceCommand(context, sourceId, { ...body }));
  }

  /** Read straight from the source's stream; another tenant's source is the same 404 as a missing one. */
  @ReadQuery()
  @Answer(200, S.sourceView)
  @Get(':sourceId')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async get(@Ctx() context: CommandContext, @Param('sourceId', ResourceId) sourceId: string, @Query() query: RawQuery) {
    const fresh = await this.runners.waitForStore(minPositionOf(query));
    const { state } = await loadAggregate(this.store, sourceStream(context.tenant, sourceId), sourceDecider);
    if (state.status === 'absent') throw problems.notFound();
    const keys = state.keys.map(({ keyId, generation, retired, addedAt, retiredAt }) => ({
      keyId,
      generation,
      retired,
      addedAt,
      retiredAt,
    }));
    return marked({ sourceId, revision: state.revision, ...state.definition, keys, updatedAt: state.revisedAt }, fresh);
  }

  /** 201 with the secret, shown this once; a replay of the same Idempotency-Key answers `secret: null`. */
  @Answer(201, S.sourceKeyAdded, 'the secret is shown only here')
  @Post(':sourceId/keys')
  @Problems(
    [404, 'not_found'],
    [409, 'key_exists, scheme_has_no_keys, key_limit_reached, key_in_flight'],
    [422, 'invalid_definition'],
  )
  @RequireScope('sources:write')
  @RedactOnReplay('secret')
  addKey(
    @Ctx() context: CommandContext,
    @Param('sourceId', ResourceId) sourceId: string,
    @Body() body: AddSourceKeyDto,
  ) {
    return this.commands.execute(new AddSourceKeyCommand(context, sourceId, body.keyId, body.secret));
  }

  @Answer(200, S.sourceKeyRetired, 'retired at once')
  @Delete(':sourceId/keys/:keyId')
  @HttpCode(200)
  @RequireScope('sources:write')
  retireKey(
    @Ctx() context: CommandContext,
    @Param('sourceId', ResourceId) sourceId: string,
    @Param('keyId', ResourceId) keyId: string,
  ) {
    return this.commands.execute(new RetireSourceKeyCommand(context, sourceId, keyId));
  }
}
