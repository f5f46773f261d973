import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { TrustedClock } from '../shared/trusted-clock.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import type { AdmissionStep, ObservedState } from '../../domain/admission/index.js';
import { occurrenceDecider } from '../../domain/occurrence/occurrence.js';
import { loadAggregate } from '../shared/aggregate.js';
import { write } from '../shared/write-kernel.js';
import { AdmitOccurrenceCommand, type AdmissionResult } from './admit-occurrence.command.js';
import { admissionWrite, fromObservation } from './admission-write.js';
import { type DecisionMade, DecisionNotifier } from './decision-notifier.js';

/**
 * AD-1/AD-2: the decision is appended at the occurrence stream's revision so racing admitters cannot
 * both decide. Without an all-or-nothing append (EventStoreDB) the appends go one by one, budget
 * first: a crash after the budget is healed by the next attempt reusing the counted execution id, but
 * a crash after the slot leaves that slot counted for good — a known gap of that adapter. A crash after
 * the overlap marker (BA-3) is healed when the retry admits (its own execution's marker blocks nothing),
 * but holds the Trigger for good when the retry blocks for another reason — the same gap. A coalescing group's
 * close (DD-5) is many appends there: a crash inside it can leave the group closed with members still held, or
 * open with a member decided (then every later close of it conflicts) — the same gap, for that adapter only.
 */
@CommandHandler(AdmitOccurrenceCommand)
export class AdmitOccurrenceHandler implements ICommandHandler<AdmitOccurrenceCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
    private readonly notifier: DecisionNotifier,
  ) {}

  execute({ occurrenceStreamId, observed }: AdmitOccurrenceCommand): Promise<AdmissionResult> {
    return write(this.store, async (attempt) => {
      // The processor hands over the observation it read; it is the whole stream unless a conflict was recorded since.
      const loaded =
        attempt === 1 && observed
          ? fromObservation(observed)
          : await loadAggregate(this.store, occurrenceStreamId, occurrenceDecider);
      const { state } = loaded;
      if (state.status === 'absent') throw new Error(`no occurrence in ${occurrenceStreamId}`);
      const { occurrenceId } = state.occurrence;
      if (state.status === 'decided') {
        const decided = { occurrenceId, decision: 'already_decided', executionId: state.executionId } as const;
        return { appends: [], answer: () => ({ ...decided, position: loaded.position }) };
      }
      const admission = await admissionWrite(this.store, this.clock, [
        [{ streamId: occurrenceStreamId, expected: loaded.revision, state }],
      ]);
      return {
        appends: admission.appends,
        answer: (positions) => {
          const { steps, decisions } = admission.answer(positions);
          decisions.forEach((decision) => this.notifier.decided(decision));
          const mine = decisions.find((d) => d.occurrenceId === occurrenceId);
          return resultOf(state, mine, steps[0]!, positions.length > 0 ? positions : [loaded.position]);
        },
      };
    });
  }
}

function resultOf(
  state: ObservedState,
  decision: DecisionMade | undefined,
  step: AdmissionStep,
  positions: readonly number[],
): AdmissionResult {
  const { occurrenceId } = state.occurrence;
  const position = decision?.position ?? positions[positions.length - 1]!;
  if (decision) return { occurrenceId, decision: decision.status, executionId: decision.executionId, position };
  // Not decided by this append: DD-5 it joined a coalescing group, or waits in one not yet due; BA-1 it joined a batch
  // (DD-5 with BA-1: perhaps as the representative of the group this append closed).
  const joined = step.decision.some((e) => e.type === 'OccurrenceBatchJoined');
  const held = !joined && (state.held || step.decision.some((e) => e.type === 'OccurrenceHeldForCoalescing'));
  return { occurrenceId, decision: held ? 'held' : 'joined_batch', executionId: null, position };
}
