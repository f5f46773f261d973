import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { reject } from '../../domain/shared/result.js';
import { manualIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { manualInputTooLarge } from '../../domain/occurrence/manual-input.js';
import { manualEvidence, observedOccurrence, observingTrigger } from '../../domain/occurrence/observed-occurrence.js';
import { observe } from '../shared/observe.js';
import { metadataOf } from '../shared/command-context.js';
import { currentTrigger } from '../shared/lookups.js';
import { FireManualOccurrenceCommand, type ManualFireResult } from './fire-manual-occurrence.command.js';

@CommandHandler(FireManualOccurrenceCommand)
export class FireManualOccurrenceHandler implements ICommandHandler<FireManualOccurrenceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  async execute({
    context,
    triggerId,
    idempotencyKey,
    input = null,
    resourceRefs,
  }: FireManualOccurrenceCommand): Promise<ManualFireResult> {
    const tooLarge = manualInputTooLarge(input);
    if (tooLarge) throw tooLarge;
    const trigger = await currentTrigger(this.store, context.tenant, triggerId);
    if (trigger.status === 'absent' || trigger.deleted) throw notFound();
    if (trigger.definition.type !== 'manual') {
      throw new CommandRejected(
        reject('trigger_not_manual', {
          detail: `Trigger ${triggerId} is a ${trigger.definition.type} Trigger; only manual Triggers take manual occurrences.`,
        }),
      );
    }
    const observed = observedOccurrence({
      kind: 'manual',
      trigger: observingTrigger(trigger),
      dedupeIdentity: manualIdentity(context.tenant, trigger, idempotencyKey),
      evidence: manualEvidence(input ?? null, resourceRefs ?? []),
      // The database's clock without a round trip of its own (SC-6), as the ingress reads it.
      observedAt: (await this.clock.now()).toISOString(),
    });
    const observation = await observe(this.store, observed, metadataOf(context));
    // Whoever observed first fixed the payload; another payload under the identity starts nothing (OC-4).
    if (observation.outcome === 'payload_conflict') {
      throw new CommandRejected(
        reject('payload_conflict', { detail: 'This delivery identity was first accepted with a different payload.' }),
      );
    }
    return { occurrenceId: observation.occurrenceId, status: 'observed', position: observation.position };
  }
}
