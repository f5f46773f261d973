import { ApiError, getJson } from '../api.js';
import { append, badge, type Child, fields, h, link, route, table, time } from '../dom.js';
import type { Ancestor, Descendant, Lineage, Occurrence } from '../types.js';

/** Descendants per request; `#/occurrences/<id>?limit=N` (1–500, the read API's bounds) asks for another size. */
const DEFAULT_PAGE = 20;
const MAX_PAGE = 500;

export function descendantsPageSize(query: URLSearchParams): number {
  const asked = query.get('limit');
  return asked !== null && /^[0-9]{1,3}$/.test(asked) && Number(asked) >= 1 && Number(asked) <= MAX_PAGE
    ? Number(asked)
    : DEFAULT_PAGE;
}

export const fetchLineage = (occurrenceId: string, limit: number, cursor?: string) =>
  getJson<Lineage>(['operator', 'occurrences', occurrenceId, 'lineage'], { limit, cursor });

const occurrenceLink = (id: string) => link(route('occurrences', id), h('code', {}, id));
const triggerLink = (id: string) => link(route('triggers', id), h('code', {}, id));
const statusOf = (status: string | null, reason: string | null): Child => [
  badge(status ?? 'unknown'),
  reason ? [' ', h('code', { class: 'reason' }, reason)] : null,
];

/** CA-1: nearest first; an Occurrence links to its page with its current status, an Operation names its Trigger. */
function ancestorsView(lineage: Lineage): Child {
  if (lineage.causal?.ancestry === 'unknown')
    return h('p', { id: 'ancestors' }, badge('unknown', 'degraded'), ' a correlation could not be verified');
  const rows: Child[][] = lineage.ancestors.map((a: Ancestor) => [
    String(a.distance),
    a.kind === 'occurrence'
      ? ['Occurrence ', occurrenceLink(a.occurrenceId)]
      : ['Operation ', h('code', {}, a.operationId)],
    a.kind === 'occurrence' ? statusOf(a.status, a.reason) : '—',
    triggerLink(a.triggerId),
  ]);
  return table(
    'ancestors',
    ['References back', 'Ancestor', 'Status', 'Trigger'],
    rows,
    'No ancestors: a root Occurrence.',
  );
}

/** CA-2: the Operations this Occurrence's execution recorded, each with the correlation it expects back. */
function operationsView(lineage: Lineage): Child {
  const rows: Child[][] = lineage.operations.map((o) => [
    h('code', {}, o.operationId),
    link(route('executions', o.executionId), h('code', {}, o.executionId)),
    h('code', {}, o.correlation.sourceId),
    h('code', {}, o.correlation.key),
    time(o.recordedAt),
  ]);
  return table(
    'operations',
    ['Operation', 'Execution', 'Source', 'Correlation key', 'Recorded'],
    rows,
    'No Operations recorded.',
  );
}

const descendantRow = (d: Descendant): Child[] => [
  occurrenceLink(d.occurrenceId),
  statusOf(d.status, d.reason),
  triggerLink(d.triggerId),
  String(d.depth),
  d.parentId ? h('code', {}, d.parentId) : '—',
  time(d.observedAt),
];

/**
 * Every Occurrence whose ancestry names this one, a page at a time: "More" follows `nextCursor` and appends the
 * next page in place, so the rows already read stay where they are.
 */
function descendantsView(lineage: Lineage, limit: number): Child {
  const headers = ['Occurrence', 'Status', 'Trigger', 'Depth', 'Answered Operation', 'Observed'];
  const list = table('descendants', headers, lineage.descendants.map(descendantRow), 'No descendants.');
  if (!lineage.nextCursor) return list;
  let cursor: string | null = lineage.nextCursor;
  const status = h('span', { class: 'form-status', role: 'status' });
  const more = h('button', { type: 'button', id: 'descendants-more' }, 'More descendants') as HTMLButtonElement;
  more.addEventListener('click', async () => {
    if (cursor === null) return;
    more.disabled = true;
    status.textContent = 'Loading…';
    try {
      const next = await fetchLineage(lineage.occurrenceId, limit, cursor);
      const body = list.querySelector('tbody');
      if (body)
        append(
          body,
          next.descendants.map((d) =>
            h(
              'tr',
              {},
              descendantRow(d).map((cell) => h('td', {}, cell)),
            ),
          ),
        );
      cursor = next.nextCursor;
      status.textContent = '';
      if (cursor === null) more.remove();
      else more.disabled = false;
    } catch (error) {
      status.textContent = `Could not load more: ${error instanceof ApiError || error instanceof Error ? error.message : String(error)}`;
      more.disabled = false;
    }
  });
  return [list, h('div', { class: 'pager' }, more, status)];
}

/** OP-2: the Occurrence's place in its causal chain, from the lineage read model. */
export function lineageSection(occurrence: Occurrence, lineage: Lineage, limit: number): Child {
  const causal = lineage.causal ?? occurrence.causal;
  return [
    fields([
      ['parent Operation', causal?.parentId ? h('code', {}, causal.parentId) : '—'],
      ['depth', causal ? String(causal.depth) : '—'],
    ]),
    lineage.stale ? h('p', { class: 'stale' }, 'The lineage read model is behind the log (stale).') : null,
    h('h3', {}, 'Ancestors (nearest first)'),
    ancestorsView(lineage),
    h('h3', {}, 'Operations its execution recorded'),
    operationsView(lineage),
    h('h3', {}, 'Descendants'),
    descendantsView(lineage, limit),
  ];
}
