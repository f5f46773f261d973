import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { missionDecider } from '../../domain/mission/mission.js';
import { missionStream } from '../../domain/shared/ids.js';
import { handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { type MissionRevisionResult, ReviseMissionCommand } from './revise-mission.command.js';

@CommandHandler(ReviseMissionCommand)
export class ReviseMissionHandler implements ICommandHandler<ReviseMissionCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ context, missionId, body }: ReviseMissionCommand): Promise<MissionRevisionResult> {
    const { expectedRevision, reason, ...definition } = body;
    const at = (await this.store.now()).toISOString();
    const handled = await handleCommand(
      this.store,
      missionStream(context.tenant, missionId),
      missionDecider,
      {
        type: 'ReviseMission',
        tenant: context.tenant,
        missionId,
        expectedRevision: expectedRevision as number | undefined,
        definition,
        reason: typeof reason === 'string' ? reason : '',
        actor: context.actor,
        at,
      },
      metadataOf(context),
    );
    const revision = handled.state.status === 'defined' ? handled.state.revision : 0;
    return { missionId, revision, position: handled.position };
  }
}
