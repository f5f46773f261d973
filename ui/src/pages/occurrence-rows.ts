import { badge, type Child, h, link, route, table, time } from '../dom.js';
import type { Occurrence } from '../types.js';

/** Occurrences as table rows (Trigger detail, lists): status, reason and where each one led. */
export function occurrenceTable(id: string, occurrences: Occurrence[]): HTMLElement {
  const rows: Child[][] = occurrences.map((o) => [
    link(route('occurrences', o.occurrenceId), h('code', {}, o.occurrenceId)),
    o.kind,
    badge(o.status),
    o.reason ? h('code', { class: 'reason' }, o.reason) : '—',
    time(o.observedAt),
    o.scheduledAt ? time(o.scheduledAt) : '—',
    o.executionId ? link(route('executions', o.executionId), h('code', {}, o.executionId.slice(0, 18) + '…')) : '—',
  ]);
  return table(
    id,
    ['Occurrence', 'Kind', 'Status', 'Reason', 'Observed', 'Scheduled', 'Execution'],
    rows,
    'No Occurrences yet.',
  );
}
