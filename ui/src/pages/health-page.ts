import { recoveryControls } from '../actions.js';
import { getJson } from '../api.js';
import { badge, type Child, h, link, route, table, time, withQuery } from '../dom.js';
import type { Route } from '../router.js';
import type { HealthRow, Page } from '../types.js';

/** `{ reason: n }` as short text, largest first. */
export function byReason(counts: Record<string, number> | undefined): Child {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return '0';
  return h(
    'ul',
    { class: 'reasons' },
    entries.map(([reason, n]) => h('li', {}, h('code', {}, reason), ` ${n}`)),
  );
}

export function lastOccurrence(row: HealthRow): Child {
  const last = row.lastOccurrence;
  if (!last) return '—';
  return [
    link(route('occurrences', last.occurrenceId), badge(last.status)),
    last.reason ? [' ', h('code', { class: 'reason' }, last.reason)] : null,
    h('div', { class: 'muted' }, time(last.observedAt)),
  ];
}

export const executionCounts = (row: HealthRow): Child =>
  h(
    'span',
    { class: 'exec-counts' },
    `${row.executions.pending} pending · ${row.executions.claimed} claimed · ${row.executions.retrying} retrying · `,
    h('span', { class: row.executions.dead > 0 ? 'dead' : '' }, `${row.executions.dead} dead`),
  );

export const authState = (row: HealthRow): Child =>
  row.auth?.lastResult
    ? [badge(row.auth.lastResult), row.auth.keyId ? [' ', h('code', {}, row.auth.keyId)] : null]
    : '—';

/** OP-1: every Trigger of the token's tenant with its health, why, and what an operator can do about it. */
export async function healthPage({ query }: Route): Promise<Node> {
  const cursor = query.get('cursor');
  const page = await getJson<Page<HealthRow>>(['operator', 'triggers'], { cursor, limit: 100 });
  const rows = page.items.map((row) => [
    link(route('triggers', row.triggerId), h('code', {}, row.triggerId)),
    [row.type ?? '—', h('div', { class: 'muted' }, `rev ${row.revision}`)],
    row.missionId ?? '—',
    [badge(row.health), row.tzdataDrift ? h('div', {}, badge('tzdata drift', 'degraded')) : null],
    lastOccurrence(row),
    [h('div', {}, 'next ', time(row.nextFireAt)), h('div', {}, 'last ', time(row.lastFireAt))],
    h(
      'div',
      { class: 'counts' },
      `${row.counts.observed} observed · ${row.counts.admitted} admitted · ${row.counts.duplicate ?? 0} duplicate`,
      Object.keys(row.counts.blocked).length > 0 ? h('div', {}, 'blocked: ', byReason(row.counts.blocked)) : null,
    ),
    executionCounts(row),
    authState(row),
    row.recovery.length > 0 ? recoveryControls(row.triggerId, row.recovery, false) : '—',
  ]);
  return h(
    'div',
    {},
    h('h1', {}, 'Trigger health'),
    page.stale ? h('p', { class: 'stale' }, 'The read models are behind the log (stale).') : null,
    table(
      'health-table',
      ['Trigger', 'Type', 'Mission', 'Health', 'Last occurrence', 'Fires', 'Counts', 'Executions', 'Auth', 'Recovery'],
      rows,
      'No Triggers in this tenant yet.',
    ),
    h(
      'nav',
      { class: 'pager' },
      cursor ? link(route('health'), 'First page') : null,
      page.nextCursor ? link(withQuery(route('health'), { cursor: page.nextCursor }), 'Next page →') : null,
    ),
  );
}
