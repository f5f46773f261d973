import { Injectable } from '@nestjs/common';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import type { StreamAppend } from '../../domain/ports/event-store.js';
import type { OccurrenceDecision } from '../../domain/occurrence/occurrence.js';

/** A decision as it was appended: AD-1 makes it final, so it may be answered without reading it back. */
export interface DecisionMade {
  occurrenceId: string;
  status: OccurrenceDecision;
  reason: string | null;
  executionId: string | null;
  /** The decision event's position in the log (read-your-writes for the read models). */
  position: number;
}

/** Enough for the decisions of a burst that land before their waiter has registered. */
const REMEMBERED = 1_024;

/**
 * Hands `?wait=decision` waiters the decision made in this process (or its background thread) as it is
 * committed, so they need not read the Occurrence stream; another process's decisions are found by polling.
 */
@Injectable()
export class DecisionNotifier {
  private readonly waiters = new Map<string, Set<(decision: DecisionMade) => void>>();
  private readonly listeners: Array<(decision: DecisionMade) => void> = [];
  /** Most recent last; a decision never changes, so what is remembered stays true. */
  private readonly recent = new Map<string, DecisionMade>();

  /** Hears every decision made here (a background thread passes them on to the HTTP thread). */
  onDecided(listener: (decision: DecisionMade) => void): void {
    this.listeners.push(listener);
  }

  decided(decision: DecisionMade): void {
    const { occurrenceId } = decision;
    this.recent.set(occurrenceId, decision);
    if (this.recent.size > REMEMBERED) this.recent.delete(this.recent.keys().next().value!);
    this.listeners.forEach((listener) => listener(decision));
    this.waiters.get(occurrenceId)?.forEach((wake) => wake(decision));
    this.waiters.delete(occurrenceId);
  }

  /** The decision once made here, or null when none came within `timeoutMs` (it may be made elsewhere). */
  wait(occurrenceId: string, timeoutMs: number): Promise<DecisionMade | null> {
    const known = this.recent.get(occurrenceId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve) => {
      const set = this.waiters.get(occurrenceId) ?? new Set();
      const done = (decision: DecisionMade | null) => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(occurrenceId) === set) this.waiters.delete(occurrenceId);
        resolve(decision);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      set.add(done);
      this.waiters.set(occurrenceId, set);
    });
  }
}

/**
 * The decision an admission appended for one Occurrence, at the position the append returned; null when the
 * append decided nothing (BA-1: it joined a batch; DD-5: it joined a coalescing group; their close decides it later).
 */
export function decisionMade(
  occurrenceId: string,
  events: readonly OccurrenceEvent[],
  position: number,
): DecisionMade | null {
  for (const event of events) {
    if (event.type === 'OccurrenceBatched')
      return { occurrenceId, status: 'batched', reason: null, executionId: event.data.executionId, position };
    if (event.type === 'OccurrenceAdmitted')
      return { occurrenceId, status: 'admitted', reason: null, executionId: event.data.executionId, position };
    if (event.type === 'OccurrenceBlocked')
      return { occurrenceId, status: 'blocked', reason: event.data.reason, executionId: null, position };
    if (event.type === 'OccurrenceSuppressed')
      return { occurrenceId, status: 'suppressed', reason: event.data.reason, executionId: null, position };
    if (event.type === 'OccurrenceCoalesced')
      return { occurrenceId, status: 'coalesced', reason: event.data.reason, executionId: null, position };
    if (event.type === 'OccurrenceSubscribed')
      return { occurrenceId, status: 'subscribed', reason: null, executionId: null, position };
  }
  return null;
}

/** An append and, when it decides an Occurrence, which one and with what events (its waiters hear the decision). */
export interface TaggedAppend {
  append: StreamAppend;
  decides: { occurrenceId: string; events: readonly OccurrenceEvent[] } | null;
}
