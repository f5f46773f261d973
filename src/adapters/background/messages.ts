/**
 * `types`: the event types appended since the last message; absent when any append's types were unknown.
 * `position`: the highest position among them, where known (a read that holds it back is retried soon: TailWindow).
 */
export type ToBackground = { type: 'appended'; types?: string[]; position?: number } | { type: 'stop' };

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
  | { type: 'appended'; types?: string[]; position?: number };

type Appended = Extract<ToBackground, { type: 'appended' }>;

/** A thread's appends since its last 'appended' message, which they share: every event type they appended. */
export class AppendBurst {
  /** null once an append named no types: then every waiter must wake. */
  private types: Set<string> | null = new Set();
  private position: number | undefined;

  add(types: readonly string[] | undefined, position?: number): void {
    if (!types) this.types = null;
    else types.forEach((type) => this.types?.add(type));
    if (position !== undefined) this.position = Math.max(position, this.position ?? position);
  }

  /** The message for the appends so far; the next burst starts empty. */
  take(): Appended {
    const { types, position } = this;
    this.types = new Set();
    this.position = undefined;
    return {
      type: 'appended',
      ...(types ? { types: [...types] } : {}),
      ...(position !== undefined ? { position } : {}),
    };
  }
}
