import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CAPABILITIES_TOKEN, EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { notFound } from '../../domain/shared/errors.js';
import { triggerStream } from '../../domain/shared/ids.js';
import { triggerDecider } from '../../domain/trigger/trigger.js';
import type { TriggerRevisionResult } from '../revise-trigger/revise-trigger.command.js';
import { handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { currentMission, currentTrigger } from '../shared/lookups.js';
import { SetTriggerEnabledCommand } from './set-trigger-enabled.command.js';

@CommandHandler(SetTriggerEnabledCommand)
export class SetTriggerEnabledHandler implements ICommandHandler<SetTriggerEnabledCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CAPABILITIES_TOKEN) private readonly capabilities: readonly string[],
  ) {}

  async execute({ context, triggerId, enabled, body }: SetTriggerEnabledCommand): Promise<TriggerRevisionResult> {
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent') throw notFound();
    const mission = await currentMission(this.store, context.tenant, trigger.definition.missionId);
    const handled = await handleCommand(
      this.store,
      triggerStream(context.tenant, triggerId),
      triggerDecider,
      {
        type: 'SetTriggerEnabled',
        tenant: context.tenant,
        triggerId,
        enabled,
        expectedRevision: body.expectedRevision,
        reason: body.reason ?? '',
        actor: context.actor,
        at: (await this.store.now()).toISOString(),
        mission,
        capabilities: this.capabilities,
      },
      metadataOf(context),
    );
    return {
      triggerId,
      revision: handled.state.status === 'defined' ? handled.state.revision : 0,
      position: handled.position,
    };
  }
}
