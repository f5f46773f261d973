export type ToBackground = { type: 'appended' } | { type: 'stop' };

import type { Wakeup } from '../../domain/execution/wakeup.js';

export type FromBackground =
  | { type: 'ready'; running: string[] }
  | { type: 'failing'; failing: Array<{ name: string; error: string }> }
  | { type: 'decided'; occurrenceIds: string[] }
  | { type: 'wakeups'; wakeups: Array<{ wakeup: Wakeup; position: number }> }
  | { type: 'folded'; projection: string };
