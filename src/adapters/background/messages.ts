/** `types`: the event types appended since the last message; absent when any append's types were unknown. */
export type ToBackground = { type: 'appended'; types?: string[] } | { type: 'stop' };

import type { Wakeup } from '../../domain/execution/wakeup.js';
import type { DecisionMade } from '../../commands/admit-occurrence/decision-notifier.js';

export type FromBackground =
  | { type: 'ready'; running: string[] }
  | { type: 'failing'; failing: Array<{ name: string; error: string }> }
  | { type: 'decided'; decisions: DecisionMade[] }
  | { type: 'wakeups'; wakeups: Array<{ wakeup: Wakeup; position: number }> }
  | { type: 'folded'; projection: string }
  /** Schedule fire delays observed here, for the HTTP thread's /metrics (OP-4). */
  | { type: 'metrics'; fireDelays: number[] }
  /** This thread's appends (ThreadRole.reportsAppends), for the other threads' waiting subscriptions. */
  | { type: 'appended'; types?: string[] };

type Appended = Extract<ToBackground, { type: 'appended' }>;

/** A thread's appends since its last 'appended' message, which they share: every event type they appended. */
export class AppendBurst {
  /** null once an append named no types: then every waiter must wake. */
  private types: Set<string> | null = new Set();

  add(types: readonly string[] | undefined): void {
    if (!types) this.types = null;
    else types.forEach((type) => this.types?.add(type));
  }

  /** The message for the appends so far; the next burst starts empty. */
  take(): Appended {
    const { types } = this;
    this.types = new Set();
    return { type: 'appended', ...(types ? { types: [...types] } : {}) };
  }
}
