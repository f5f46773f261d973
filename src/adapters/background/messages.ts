export type ToBackground = { type: 'appended' } | { type: 'stop' };

import type { Wakeup } from '../../domain/execution/wakeup.js';
import type { DecisionMade } from '../../commands/admit-occurrence/decision-notifier.js';

export type FromBackground =
  | { type: 'ready'; running: string[] }
  | { type: 'failing'; failing: Array<{ name: string; error: string }> }
  | { type: 'decided'; decisions: DecisionMade[] }
  | { type: 'wakeups'; wakeups: Array<{ wakeup: Wakeup; position: number }> }
  | { type: 'folded'; projection: string };
