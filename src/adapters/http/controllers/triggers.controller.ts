import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Headers } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { FireManualOccurrenceCommand } from '../../../commands/fire-manual-occurrence/fire-manual-occurrence.command.js';
import { FireManualOccurrenceDto } from '../../../commands/fire-manual-occurrence/fire-manual-occurrence.dto.js';
import { ReviseTriggerCommand } from '../../../commands/revise-trigger/revise-trigger.command.js';
import { ReasonDto, ReviseTriggerDto } from '../../../commands/revise-trigger/revise-trigger.dto.js';
import { DeleteTriggerCommand } from '../../../commands/delete-trigger/delete-trigger.command.js';
import { SetTriggerEnabledCommand } from '../../../commands/set-trigger-enabled/set-trigger-enabled.command.js';
import type { CommandContext } from '../../../commands/shared/command-context.js';
import { triggerStream } from '../../../domain/shared/ids.js';
import type { TriggerDeleted, TriggerRevised } from '../../../domain/trigger/trigger.js';
import { withDeliveryDefaults } from '../../../domain/trigger/trigger-definition.js';
import { currentTrigger } from '../../../commands/shared/lookups.js';
import { Problems, RequireScope } from '../auth/auth.decorators.js';
import { HttpResult } from '../http-result.js';
import { problems } from '../problems/problem.js';
import { DecisionWaiter } from './decision-waiter.js';
import { ProjectionRunners } from '../../runner/projection-runners.js';
import { marked, minPositionOf, paged, type RawQuery, readParams } from './read-params.js';
import { decodeCursor, encodeCursor, InvalidCursor } from '../../../projections/occurrences/cursor.js';
import { Ctx } from './request-context.js';
import { ResourceId } from './resource-id.pipe.js';
import { Answer, BodySchema, ReadQuery } from '../openapi/decorators.js';
import * as S from '../openapi/answer-schemas.js';
import { triggerDefinitionSchema } from '../openapi/definition-schemas.js';
import { isResourceRef, RESOURCE_REF_RULE } from '../../../domain/shared/scopes.js';

@ApiTags('triggers')
@ApiBearerAuth()
@Controller('v1/triggers')
export class TriggersController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly decisions: DecisionWaiter,
    private readonly runners: ProjectionRunners,
  ) {}

  @BodySchema(triggerDefinitionSchema)
  @Answer(200, S.triggerRevised)
  @Put(':triggerId')
  @HttpCode(200)
  @RequireScope('triggers:write')
  @Problems(
    [409, 'revision_conflict, mission_terminal, idempotency_key_conflict, idempotency_key_in_flight'],
    [422, 'invalid_definition, authority_widening, capability_unsupported, mission_not_found'],
  )
  revise(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Body() body: ReviseTriggerDto,
  ) {
    return this.commands.execute(new ReviseTriggerCommand(context, triggerId, { ...body }));
  }

  @Answer(200, S.triggerRevised, 'a new revision')
  @Post(':triggerId/enable')
  @HttpCode(200)
  @RequireScope('triggers:write')
  @Problems([409, 'revision_conflict, mission_terminal'], [422, 'capability_unsupported, mission_not_found'])
  enable(@Ctx() context: CommandContext, @Param('triggerId', ResourceId) triggerId: string, @Body() body: ReasonDto) {
    return this.commands.execute(new SetTriggerEnabledCommand(context, triggerId, true, body ?? {}));
  }

  @Answer(200, S.triggerRevised, 'a new revision')
  @Post(':triggerId/disable')
  @HttpCode(200)
  @RequireScope('triggers:write')
  disable(@Ctx() context: CommandContext, @Param('triggerId', ResourceId) triggerId: string, @Body() body: ReasonDto) {
    return this.commands.execute(new SetTriggerEnabledCommand(context, triggerId, false, body ?? {}));
  }

  @Answer(200, S.triggerRevised, 'the final revision')
  @Delete(':triggerId')
  @HttpCode(200)
  @RequireScope('triggers:write')
  @Problems([404, 'not_found'], [409, 'revision_conflict, idempotency_key_conflict, idempotency_key_in_flight'])
  remove(@Ctx() context: CommandContext, @Param('triggerId', ResourceId) triggerId: string, @Body() body: ReasonDto) {
    return this.commands.execute(new DeleteTriggerCommand(context, triggerId, body ?? {}));
  }

  /** Definitions are read straight from their streams: `?minPosition` waits for the store only. */
  @ReadQuery()
  @Answer(200, S.triggerView)
  @Get(':triggerId')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async get(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Query() query: RawQuery,
  ) {
    const fresh = await this.runners.waitForStore(minPositionOf(query));
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw problems.notFound();
    return marked(
      {
        triggerId,
        revision: trigger.revision,
        ...trigger.definition,
        dedupeEpoch: trigger.dedupeEpoch,
        pins: trigger.pins,
        revisedAt: trigger.revisedAt,
      },
      fresh,
    );
  }

  @ReadQuery()
  @Answer(200, S.triggerRevisions)
  @Get(':triggerId/revisions')
  @RequireScope('operator:read')
  @Problems([400, 'BAD_REQUEST'], [404, 'not_found'])
  async revisions(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Query() query: RawQuery,
  ) {
    const params = readParams(query);
    const after = params.cursor === undefined ? 0 : await paged(async () => revisionAfter(params.cursor!));
    const fresh = await this.runners.waitForStore(params.minPosition);
    const events = await this.store.readStream(triggerStream(context.tenant, triggerId));
    if (events.length === 0) throw problems.notFound();
    // The deletion is a revision too (history stays): listed without a definition.
    const all = events.flatMap((e): RevisionItem[] => {
      if (e.type === 'TriggerRevised') {
        const data = e.data as TriggerRevised['data'];
        const { revision, actor, reason } = data;
        return [
          { revision, recordedAt: e.recordedAt, actor, reason, definition: withDeliveryDefaults(data.definition) },
        ];
      }
      if (e.type === 'TriggerDeleted') {
        const { revision, actor, reason } = e.data as TriggerDeleted['data'];
        return [{ revision, recordedAt: e.recordedAt, actor, reason, definition: null, deleted: true }];
      }
      return [];
    });
    const items = all.filter((item) => item.revision > after).slice(0, params.limit);
    const last = items[items.length - 1];
    const nextCursor =
      last && all[all.length - 1] !== last ? encodeCursor(REVISIONS_LIST, [String(last.revision)]) : null;
    return marked({ items, nextCursor }, fresh);
  }

  /** The Idempotency-Key is the manual delivery identity: a retry replays, a new key fires again. */
  @Answer(202, S.manualOccurrence, 'observed')
  @Answer(200, S.manualOccurrence, '?wait=decision: decided in time')
  @Post(':triggerId/occurrences')
  @RequireScope('occurrences:write')
  @Problems(
    [404, 'not_found'],
    [409, 'payload_conflict, trigger_not_manual, idempotency_key_conflict, idempotency_key_in_flight'],
  )
  async fire(
    @Ctx() context: CommandContext,
    @Param('triggerId', ResourceId) triggerId: string,
    @Headers('idempotency-key') key: string,
    @Body() body: FireManualOccurrenceDto,
    @Query('wait') wait?: string,
  ) {
    if (wait !== undefined && wait !== 'decision')
      throw problems.badRequest([{ pointer: '?wait', message: 'wait must be "decision"' }]);
    // TR-2/AD-2: a resource ref is a concrete resource: no glob, no `.`/`..` segment a consumer could resolve away.
    const badRefs = (body.resourceRefs ?? []).flatMap((ref, i) =>
      isResourceRef(ref) ? [] : [{ pointer: `/resourceRefs/${i}`, message: RESOURCE_REF_RULE }],
    );
    if (badRefs.length > 0) throw problems.badRequest(badRefs);
    const fired = await this.commands.execute(
      new FireManualOccurrenceCommand(context, triggerId, key, body.input, body.resourceRefs ?? []),
    );
    if (wait !== 'decision') return new HttpResult(202, fired);
    const decided = await this.decisions.waitFor(fired.occurrenceId, 5_000);
    return decided ? new HttpResult(200, decided) : new HttpResult(202, fired);
  }
}

const REVISIONS_LIST = 'trigger-revisions';

/** The revision a `/revisions` cursor names: the last one its page served. */
function revisionAfter(cursor: string): number {
  const [revision] = decodeCursor(REVISIONS_LIST, cursor, 1);
  if (!/^[1-9][0-9]{0,9}$/.test(revision!)) throw new InvalidCursor();
  return Number(revision);
}

interface RevisionItem {
  revision: number;
  recordedAt: string;
  actor: string;
  reason: string;
  definition: TriggerRevised['data']['definition'] | null;
  deleted?: true;
}
