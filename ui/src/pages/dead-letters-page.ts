import { recoverForm } from '../actions.js';
import { getJson } from '../api.js';
import { h, link, route, table, time, withQuery } from '../dom.js';
import type { Route } from '../router.js';
import type { DeadLetter, Page } from '../types.js';

/** EX-4: the executions that run again only when an operator recovers them, each with its recover form. */
export async function deadLettersPage({ query }: Route): Promise<Node> {
  const triggerId = query.get('triggerId');
  const missionId = query.get('missionId');
  const cursor = query.get('cursor');
  const page = await getJson<Page<DeadLetter>>(['operator', 'dead-letters'], { triggerId, missionId, cursor });
  const rows = page.items.map((dead) => [
    link(route('executions', dead.executionId), h('code', {}, dead.executionId)),
    link(route('triggers', dead.triggerId), h('code', {}, dead.triggerId)),
    dead.missionId,
    [h('code', {}, dead.reason), h('div', { class: 'muted' }, `${dead.attempts} attempt(s)`)],
    dead.lastError
      ? [h('code', {}, dead.lastError.code), h('div', { class: 'error-message' }, dead.lastError.message)]
      : '—',
    time(dead.deadLetteredAt),
    recoverForm(dead.executionId),
  ]);
  const base = route('dead-letters');
  return h(
    'div',
    {},
    h('h1', {}, 'Dead letters'),
    triggerId || missionId
      ? h(
          'p',
          { class: 'filters' },
          triggerId ? ['Trigger ', h('code', {}, triggerId)] : null,
          missionId ? [' Mission ', h('code', {}, missionId)] : null,
          ' · ',
          link(base, 'all'),
        )
      : null,
    page.stale ? h('p', { class: 'stale' }, 'The read models are behind the log (stale).') : null,
    table(
      'dead-letters-table',
      ['Execution', 'Trigger', 'Mission', 'Reason', 'Last error', 'Dead since', 'Recover (reason required)'],
      rows,
      'No dead letters.',
    ),
    page.nextCursor
      ? h(
          'nav',
          { class: 'pager' },
          link(withQuery(base, { triggerId, missionId, cursor: page.nextCursor }), 'Next page →'),
        )
      : null,
  );
}
