import { LIFECYCLE_EVENT_TYPES, type LifecycleEvent } from '../execution/execution-events.js';
import type { ObservedOccurrence, OccurrenceSubscribed } from '../occurrence/occurrence-events.js';
import { type SubscriptionEvent, subscriptionKey, type SubscriptionRegisteredData } from './subscription-events.js';
import { matches } from './subscription-match.js';
import { evolveWaitFor, matchedEvent, type WaitForState } from './wait-for.js';

/** An accepted Occurrence as matching sees it, in acceptance (log) order. */
export interface AcceptedEvent {
  occurrence: ObservedOccurrence;
  /** The verified delivering source's `correlationPointer`, else null. */
  correlationPointer: string | null;
  /** The `waitfor-…` streams it can be delivered to: its Trigger's, and its source's. */
  targets: readonly string[];
  /**
   * The subscriptions active at its acceptance: registered before it in the log, by an execution that had not ended
   * by then (`endsSubscriptions`). The caller asks the store for both orders.
   */
  registeredBefore: ReadonlySet<string>;
}

/**
 * A completion, a settlement or a dead letter ends the execution, and with it its subscriptions: an event accepted
 * after that is decided as if they were not there, not `subscribed` to an execution that will never run again. A
 * retry keeps them (the next attempt waits on the same subscription), and so does a recovery after the end.
 */
const ENDING: ReadonlySet<string> = new Set<LifecycleEvent['type']>([
  'ExecutionCompleted',
  'ExecutionSettled',
  'ExecutionDeadLettered',
]);
const LIFECYCLE: ReadonlySet<string> = new Set(LIFECYCLE_EVENT_TYPES);

/** Whether the last lifecycle event among `types` (an execution stream's, in order, up to some point) ended it. */
export function endsSubscriptions(types: readonly string[]): boolean {
  const last = types.filter((type) => LIFECYCLE.has(type)).at(-1);
  return last !== undefined && ENDING.has(last);
}

const keyOf = (s: SubscriptionRegisteredData) => subscriptionKey(s.execution.executionId, s.subscriptionId);

/** The active subscriptions of its targets whose match holds, whatever the order (the caller then asks it). */
export function contentMatches(
  accepted: Omit<AcceptedEvent, 'registeredBefore'>,
  targets: ReadonlyMap<string, WaitForState>,
): SubscriptionRegisteredData[] {
  const { occurrence, correlationPointer } = accepted;
  return accepted.targets.flatMap((streamId) =>
    (targets.get(streamId)?.active ?? []).filter(
      (s) =>
        Date.parse(occurrence.observedAt) < Date.parse(s.deadline) &&
        matches(s.match, { occurrence, correlationPointer }),
    ),
  );
}

export interface MatchedInOrder {
  /** By Occurrence id: its decision when it was delivered to subscriptions (absent: admission decides it). */
  decisions: Map<string, OccurrenceSubscribed>;
  /** By `waitfor-…` stream, in acceptance order. */
  events: Map<string, SubscriptionEvent[]>;
  targets: Map<string, WaitForState>;
}

/**
 * SU-1: each accepted event, in acceptance order, goes to every subscription that was active at its acceptance
 * (registered before it in the log, its deadline after the acceptance, not yet resolved by an earlier event) and
 * whose match holds. Delivered, it is decided `subscribed` and consumes its delivery identity: admission never
 * sees it. One-shot: the first such event resolves a subscription, so later ones in the batch do not find it.
 */
export function matchInOrder(
  accepted: readonly AcceptedEvent[],
  targets: ReadonlyMap<string, WaitForState>,
  now: string,
): MatchedInOrder {
  const states = new Map(targets);
  const events = new Map<string, SubscriptionEvent[]>();
  const decisions = new Map<string, OccurrenceSubscribed>();
  for (const event of accepted) {
    const { occurrence } = event;
    const delivered: Array<{ streamId: string; subscription: SubscriptionRegisteredData }> = [];
    for (const streamId of event.targets) {
      const state = states.get(streamId);
      if (!state) continue;
      for (const subscription of contentMatches({ ...event, targets: [streamId] }, states))
        if (event.registeredBefore.has(keyOf(subscription))) delivered.push({ streamId, subscription });
    }
    if (delivered.length === 0) continue;
    for (const { streamId, subscription } of delivered) {
      const matched = matchedEvent(subscription, occurrence, now);
      states.set(streamId, evolveWaitFor(states.get(streamId)!, matched));
      events.set(streamId, [...(events.get(streamId) ?? []), matched]);
    }
    const subscriptions = delivered.map(({ subscription: s }) => ({
      subscriptionId: s.subscriptionId,
      executionId: s.execution.executionId,
    }));
    decisions.set(occurrence.occurrenceId, {
      type: 'OccurrenceSubscribed',
      data: { occurrenceId: occurrence.occurrenceId, evidence: { subscriptions }, decidedAt: now },
    });
  }
  return { decisions, events, targets: states };
}
