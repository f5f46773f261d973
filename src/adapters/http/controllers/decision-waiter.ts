import { Inject, Injectable } from '@nestjs/common';
import { type DecisionMade, DecisionNotifier } from '../../../commands/admit-occurrence/decision-notifier.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { loadAggregate } from '../../../commands/shared/aggregate.js';
import { occurrenceDecider } from '../../../domain/occurrence/occurrence.js';
import { occurrenceStream } from '../../../domain/shared/ids.js';

export type DecisionAnswer = DecisionMade;

/** Decisions made in another process are not heard here: they are looked for in the stream this often. */
const POLL_MS = 200;

/**
 * `?wait=decision`: the decision as the admission in this process (or its background thread) committed it,
 * otherwise as read from the occurrence's own stream (the truth, not a projection).
 */
@Injectable()
export class DecisionWaiter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly notifier: DecisionNotifier,
  ) {}

  async waitFor(occurrenceId: string, timeoutMs: number): Promise<DecisionAnswer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // A fresh Occurrence is not decided yet: reading its stream straight away would only find it observed.
      const heard = await this.notifier.wait(occurrenceId, Math.max(0, Math.min(deadline - Date.now(), POLL_MS)));
      if (heard) return heard;
      // The occurrence id is the identity hash that names its stream (OC-3).
      const { state, position } = await loadAggregate(this.store, occurrenceStream(occurrenceId), occurrenceDecider);
      if (state.status === 'decided') {
        return { occurrenceId, status: state.decision, reason: state.reason, executionId: state.executionId, position };
      }
      if (deadline - Date.now() <= 0) return null;
    }
  }
}
