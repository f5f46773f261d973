import { Inject, Injectable } from '@nestjs/common';
import { DecisionNotifier } from '../../../commands/admit-occurrence/decision-notifier.js';
import { EVENT_STORE } from '../../../commands/shared/tokens.js';
import { type EventStore } from '../../../domain/ports/event-store.js';
import { loadAggregate } from '../../../commands/shared/aggregate.js';
import { occurrenceDecider } from '../../../domain/occurrence/occurrence.js';
import { occurrenceStream } from '../../../domain/shared/ids.js';

export interface DecisionAnswer {
  occurrenceId: string;
  status: 'admitted' | 'blocked';
  reason: string | null;
  executionId: string | null;
  position: number;
}

/** `?wait=decision`: watches the occurrence's own stream (the truth, not a projection) for its decision. */
@Injectable()
export class DecisionWaiter {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly notifier: DecisionNotifier,
  ) {}

  async waitFor(occurrenceId: string, timeoutMs: number): Promise<DecisionAnswer | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // The occurrence id is the identity hash that names its stream (OC-3).
      const { state, position } = await loadAggregate(this.store, occurrenceStream(occurrenceId), occurrenceDecider);
      if (state.status === 'decided') {
        return { occurrenceId, status: state.decision, reason: state.reason, executionId: state.executionId, position };
      }
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await this.notifier.wait(occurrenceId, Math.min(left, 200));
    }
  }
}
