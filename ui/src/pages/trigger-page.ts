import { recoveryControls } from '../actions.js';
import { ApiError, getJson } from '../api.js';
import { badge, type Child, fields, h, json, link, route, section, table, time, withQuery } from '../dom.js';
import type { Route } from '../router.js';
import type { HealthDetail, PollView, Range } from '../types.js';
import { authState, byReason, executionCounts, lastOccurrence } from './health-page.js';
import { occurrenceTable } from './occurrence-rows.js';

const ranges = (id: string, list: Range[], empty: string) =>
  table(
    id,
    ['From', 'To', 'Instants'],
    list.map((r) => [time(r.from), time(r.to), String(r.count)]),
    empty,
  );

function scheduleSection(detail: HealthDetail): Child {
  const schedule = detail.schedule;
  if (!schedule) return null;
  return section(
    'Schedule',
    fields([
      ['engine', schedule.engine ?? '—'],
      ['tz data', [schedule.tzdataVersion ?? '—', detail.tzdataDrift ? [' ', badge('drift', 'degraded')] : null]],
      ['decided up to', time(schedule.boundary)],
      ['next fire', time(detail.nextFireAt)],
      ['last fire', time(detail.lastFireAt)],
    ]),
    h('h3', {}, 'Held ranges (waiting for an operator)'),
    ranges('held-ranges', schedule.held, 'No held ranges.'),
    h('h3', {}, 'Skipped ranges'),
    table(
      'skipped-ranges',
      ['From', 'To', 'Instants', 'Cause'],
      schedule.skipped.map((r) => [time(r.from), time(r.to), String(r.count), h('code', {}, r.cause)]),
      'No skipped ranges.',
    ),
  );
}

/** PO-1/PO-4: the poll loop's state; only poll Triggers have it. */
async function pollSection(triggerId: string): Promise<Child> {
  let poll: PollView;
  try {
    poll = await getJson<PollView>(['operator', 'triggers', triggerId, 'poll']);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404)
      return section('Poll state', h('p', { class: 'empty' }, 'Not polled yet.'));
    throw error;
  }
  return section(
    'Poll state',
    fields([
      ['cursor', poll.cursor === null ? '— (from the first page)' : h('code', {}, poll.cursor)],
      ['last poll', time(poll.lastPollAt)],
      ['last result', badge(poll.lastResult)],
      ['consecutive failures', String(poll.consecutiveFailures)],
      ['last error', poll.lastError ? json(poll.lastError) : '—'],
      [
        'held',
        poll.held
          ? [
              h('code', {}, poll.held.reason),
              ` at item ${poll.held.index}`,
              poll.held.itemId ? [' (', h('code', {}, poll.held.itemId), ')'] : null,
            ]
          : '—',
      ],
    ]),
    h('h3', {}, 'Quarantined items'),
    table(
      'quarantined',
      ['Item', 'Index', 'Reason', 'At'],
      poll.quarantined.map((q) => [
        q.itemId ? h('code', {}, q.itemId) : '—',
        String(q.index),
        h('code', {}, q.reason),
        time(q.at),
      ]),
      'Nothing quarantined.',
    ),
  );
}

/** OP-1: one Trigger's health, its schedule ranges or poll state, recent Occurrences and recovery actions. */
export async function triggerPage({ segments }: Route): Promise<Node> {
  const triggerId = segments[1]!;
  const detail = await getJson<HealthDetail>(['operator', 'triggers', triggerId]);
  const poll = detail.type === 'poll' ? await pollSection(triggerId) : null;
  return h(
    'div',
    {},
    h('h1', {}, 'Trigger ', h('code', {}, detail.triggerId)),
    detail.stale ? h('p', { class: 'stale' }, 'The read models are behind the log (stale).') : null,
    fields([
      ['health', badge(detail.health)],
      ['type', detail.type ?? '—'],
      ['mission', detail.missionId ?? '—'],
      ['enabled', detail.enabled ? 'yes' : 'no'],
      ['revision', String(detail.revision)],
      ['last occurrence', lastOccurrence(detail)],
      ['auth', authState(detail)],
      [
        'counts',
        `${detail.counts.observed} observed · ${detail.counts.admitted} admitted · ${detail.counts.duplicate ?? 0} duplicate`,
      ],
      ['blocked', byReason(detail.counts.blocked)],
      ['suppressed', byReason(detail.counts.suppressed)],
      [
        'executions',
        [
          executionCounts(detail),
          ' · ',
          link(withQuery(route('executions'), { triggerId }), 'list'),
          ' · ',
          link(withQuery(route('dead-letters'), { triggerId }), 'dead letters'),
        ],
      ],
    ]),
    section(
      'Recovery',
      detail.recovery.length > 0
        ? recoveryControls(detail.triggerId, detail.recovery, true)
        : h('p', { class: 'empty' }, 'Nothing to recover.'),
    ),
    scheduleSection(detail),
    poll,
    section('Recent Occurrences', occurrenceTable('recent-occurrences', detail.recentOccurrences)),
  );
}
