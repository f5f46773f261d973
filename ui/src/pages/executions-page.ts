import { recoverForm } from '../actions.js';
import { getJson } from '../api.js';
import { badge, type Child, fields, h, json, link, route, section, table, time, withQuery } from '../dom.js';
import type { Route } from '../router.js';
import type { ExecutionDetail, ExecutionRow, Page } from '../types.js';

const STATUSES = ['', 'pending', 'claimed', 'retrying', 'completed', 'failed', 'dead_lettered', 'noncommitted'];
/** api.md: recovery is allowed for these; a claimed execution needs a settlement first. */
const RECOVERABLE = ['dead_lettered', 'failed', 'noncommitted'];

const errorText = (error: ExecutionRow['lastError']): Child =>
  error ? [h('code', {}, error.code), h('div', { class: 'error-message' }, error.message)] : '—';

/** EX-4/OP-1: executions of the tenant, newest first, filtered by status and Trigger. */
export async function executionsPage({ query }: Route): Promise<Node> {
  const status = query.get('status') ?? '';
  const triggerId = query.get('triggerId');
  const cursor = query.get('cursor');
  const page = await getJson<Page<ExecutionRow>>(['executions'], { status, triggerId, cursor });
  const select = h(
    'select',
    {
      id: 'status-filter',
      'aria-label': 'status',
      onchange: (event: Event) => {
        location.hash = withQuery(route('executions'), {
          status: (event.target as HTMLSelectElement).value,
          triggerId,
        });
      },
    },
    STATUSES.map((s) => h('option', { value: s, selected: s === status }, s === '' ? 'any status' : s)),
  );
  const rows = page.items.map((e) => [
    link(route('executions', e.executionId), h('code', {}, e.executionId)),
    badge(e.status),
    e.triggerId ? link(route('triggers', e.triggerId), h('code', {}, e.triggerId)) : '—',
    `attempt ${e.attempt ?? '?'} · gen ${e.generation ?? '?'}`,
    time(e.nextAttemptAt),
    errorText(e.lastError),
  ]);
  return h(
    'div',
    {},
    h('h1', {}, 'Executions'),
    h(
      'div',
      { class: 'filters' },
      select,
      triggerId
        ? ['Trigger ', h('code', {}, triggerId), ' ', link(withQuery(route('executions'), { status }), 'all Triggers')]
        : null,
    ),
    page.stale ? h('p', { class: 'stale' }, 'The read models are behind the log (stale).') : null,
    table(
      'executions-table',
      ['Execution', 'Status', 'Trigger', 'Attempt', 'Next attempt', 'Last error'],
      rows,
      'No executions.',
    ),
    page.nextCursor
      ? h(
          'nav',
          { class: 'pager' },
          link(withQuery(route('executions'), { status, triggerId, cursor: page.nextCursor }), 'Next page →'),
        )
      : null,
  );
}

/** One execution from its own streams (never the payload): claim, errors, history and the recover action. */
export async function executionPage({ segments }: Route): Promise<Node> {
  const e = await getJson<ExecutionDetail>(['operator', 'executions', segments[1]!]);
  return h(
    'div',
    {},
    h('h1', {}, 'Execution ', h('code', {}, e.executionId)),
    fields([
      ['status', [badge(e.status), e.overdue ? [' ', badge('overdue', 'degraded')] : null]],
      ['attempt / generation', `${e.attempt ?? '?'} / ${e.generation ?? '?'}`],
      ['occurrence', e.occurrenceId ? link(route('occurrences', e.occurrenceId), h('code', {}, e.occurrenceId)) : '—'],
      ['trigger', e.triggerId ? link(route('triggers', e.triggerId), h('code', {}, e.triggerId)) : '—'],
      ['mission', e.missionId ?? '—'],
      ['lane', e.lane ? h('code', {}, e.lane) : '—'],
      [
        'claim',
        e.claim ? [h('code', {}, e.claim.consumerId), ` fence ${e.claim.fence} since `, time(e.claim.at)] : '—',
      ],
      ['next attempt', time(e.nextAttemptAt)],
      ['last error', errorText(e.lastError)],
      [
        'dead letter',
        e.deadLetter
          ? [h('code', {}, e.deadLetter.reason), ` after ${e.deadLetter.attempts} attempt(s), `, time(e.deadLetter.at)]
          : '—',
      ],
      ['completion', e.completion ? json(e.completion) : '—'],
      ['settlement', e.settlement ? json(e.settlement) : '—'],
    ]),
    RECOVERABLE.includes(e.status) ? section('Recover', recoverForm(e.executionId)) : null,
    section(
      'History',
      table(
        'execution-history',
        ['Event', 'At', 'Details'],
        e.history.map(({ type, at, ...rest }) => [
          h('code', {}, type),
          time(at),
          Object.keys(rest).length > 0 ? json(rest) : '',
        ]),
      ),
    ),
  );
}
