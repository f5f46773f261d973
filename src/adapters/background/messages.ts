/**
 * `types`: the event types appended since the last message; absent when any append's types were unknown.
 * `position`: the highest position among those appends that said one (a subscriber that read nothing past it looks
 * again shortly: an older open transaction held it back).
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
