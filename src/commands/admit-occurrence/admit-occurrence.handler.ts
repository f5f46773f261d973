import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { TrustedClock } from '../shared/trusted-clock.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import { type Loaded, loadAggregate } from '../shared/aggregate.js';
import { AdmitOccurrenceCommand, type AdmissionResult } from './admit-occurrence.command.js';
import { admitInOrder, fromObservation, type Observed } from './admission-step.js';
import { DecisionNotifier } from './decision-notifier.js';

const MAX_ATTEMPTS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * AD-1/AD-2: look up current Trigger, Mission, budget, concurrency slots and key, decide once, and
 * append the decision at the occurrence stream's revision so racing admitters cannot both decide. An
 * admission also counts against the Mission's hourly budget and takes one of its slots (serializing
 * admissions per Mission); all of it is one all-or-nothing append where the store has one. Without one (EventStoreDB) the appends go one by one, budget first: a crash
 * after the budget is healed by the next attempt reusing the counted execution id, but a crash after
 * the slot leaves that slot counted for good (nothing repairs it yet) — a known gap of that adapter.
 */
@CommandHandler(AdmitOccurrenceCommand)
export class AdmitOccurrenceHandler implements ICommandHandler<AdmitOccurrenceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
    private readonly notifier: DecisionNotifier,
  ) {}

  async execute({ occurrenceStreamId, observed }: AdmitOccurrenceCommand): Promise<AdmissionResult> {
    for (let attempt = 1; ; attempt++) {
      // The processor hands over the observation it read; it is the whole stream unless a conflict was recorded since.
      const loaded =
        attempt === 1 && observed
          ? fromObservation(observed)
          : await loadAggregate(this.store, occurrenceStreamId, occurrenceDecider);
      const state = loaded.state;
      if (state.status === 'absent') throw new Error(`no occurrence in ${occurrenceStreamId}`);
      if (state.status === 'decided')
        return {
          occurrenceId: state.occurrence.occurrenceId,
          decision: 'already_decided',
          executionId: state.executionId,
          position: loaded.position,
        };
      try {
        return await this.admit(occurrenceStreamId, state, loaded);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= MAX_ATTEMPTS) throw error;
        // Another admitter decided first, a conflicting delivery was recorded, or the Mission's budget moved: look again.
        await sleep(Math.random() * Math.min(2 ** attempt, 50));
      }
    }
  }

  private async admit(
    occurrenceStreamId: string,
    state: Observed,
    loaded: Loaded<OccurrenceState>,
  ): Promise<AdmissionResult> {
    const { occurrenceId } = state.occurrence;
    const { steps, positions } = await admitInOrder(this.store, this.clock, [
      { streamId: occurrenceStreamId, expected: loaded.revision, state },
    ]);
    const step = steps[0]!;
    this.notifier.decided(occurrenceId);
    const isAdmitted = step.decision[0]!.type === 'OccurrenceAdmitted';
    return {
      occurrenceId,
      decision: isAdmitted ? 'admitted' : 'blocked',
      executionId: isAdmitted ? step.executionId : null,
      position: positions[positions.length - 1]!,
    };
  }
}
