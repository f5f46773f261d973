import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CAPABILITIES_TOKEN } from '../shared/tokens.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { initialMissionState } from '../../domain/mission/mission.js';
import { triggerStream } from '../../domain/shared/ids.js';
import { triggerDecider } from '../../domain/trigger/trigger.js';
import { handleCommand } from '../shared/write-kernel.js';
import { metadataOf } from '../shared/command-context.js';
import { currentMission, currentSource } from '../shared/lookups.js';
import { ReviseTriggerCommand, type TriggerRevisionResult } from './revise-trigger.command.js';

@CommandHandler(ReviseTriggerCommand)
export class ReviseTriggerHandler implements ICommandHandler<ReviseTriggerCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CAPABILITIES_TOKEN) private readonly capabilities: readonly string[],
  ) {}

  async execute({ context, triggerId, body }: ReviseTriggerCommand): Promise<TriggerRevisionResult> {
    const { expectedRevision, reason, ...definition } = body;
    const missionId = typeof definition.missionId === 'string' ? definition.missionId : null;
    // The Mission is looked up now: authority is checked against its *current* grants (TR-2).
    const [mission, sourceDefined] = await Promise.all([
      missionId ? currentMission(this.store, context.tenant, missionId) : initialMissionState,
      webhookSourceDefined(this.store, context.tenant, definition),
    ]);
    const handled = await handleCommand(
      this.store,
      triggerStream(context.tenant, triggerId),
      triggerDecider,
      {
        type: 'ReviseTrigger',
        tenant: context.tenant,
        triggerId,
        expectedRevision: expectedRevision as number | undefined,
        definition,
        reason: typeof reason === 'string' ? reason : '',
        actor: context.actor,
        at: (await this.store.now()).toISOString(),
        mission,
        capabilities: this.capabilities,
        pins: { tzdataVersion: process.versions.tz ?? 'unknown' },
        sourceDefined,
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

/** A webhook Trigger must name a source of its tenant (else deliveries could never reach it); undefined: not one. */
async function webhookSourceDefined(
  store: EventStore,
  tenant: string,
  definition: Record<string, unknown>,
): Promise<boolean | undefined> {
  const source = definition.source as { sourceId?: unknown } | undefined;
  if (definition.type !== 'webhook' || typeof source?.sourceId !== 'string') return undefined;
  return (await currentSource(store, tenant, source.sourceId)).status !== 'absent';
}
