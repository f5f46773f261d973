import { getJson } from '../api.js';
import { badge, type Child, fields, h, json, link, route, section, time } from '../dom.js';
import type { Route } from '../router.js';
import type { Occurrence } from '../types.js';

/**
 * CA-1/CA-2 as far as the Occurrence itself records it: its parent and the bounded ancestry it carries. The
 * descendants view (`…/lineage`) is not served yet, so this page does not ask for it.
 */
function lineage(occurrence: Occurrence): Child {
  const causal = occurrence.causal;
  if (!causal) return h('p', { class: 'empty' }, 'No causal link.');
  const ancestry =
    causal.ancestry === 'unknown'
      ? h('p', {}, badge('unknown', 'degraded'), ' a correlation could not be verified')
      : causal.ancestry.length === 0
        ? h('p', { class: 'empty' }, 'No ancestors: a root Occurrence.')
        : h(
            'ol',
            { id: 'ancestry' },
            causal.ancestry.map((a) =>
              h(
                'li',
                {},
                a.occurrenceId ? link(route('occurrences', a.occurrenceId), h('code', {}, a.occurrenceId)) : null,
                a.operationId ? ['operation ', h('code', {}, a.operationId)] : null,
                ' of Trigger ',
                link(route('triggers', a.triggerId), h('code', {}, a.triggerId)),
              ),
            ),
          );
  return [
    fields([
      ['parent', causal.parentId ? link(route('occurrences', causal.parentId), h('code', {}, causal.parentId)) : '—'],
      ['depth', String(causal.depth)],
    ]),
    h('h3', {}, 'Ancestors (oldest first)'),
    ancestry,
  ];
}

/** OP-2: one Occurrence with its evidence, decision and reason, linked execution and causal lineage. */
export async function occurrencePage({ segments }: Route): Promise<Node> {
  const o = await getJson<Occurrence>(['operator', 'occurrences', segments[1]!]);
  return h(
    'div',
    {},
    h('h1', {}, 'Occurrence ', h('code', {}, o.occurrenceId)),
    o.stale ? h('p', { class: 'stale' }, 'The read models are behind the log (stale).') : null,
    fields([
      ['status', [badge(o.status), o.reason ? [' ', h('code', { class: 'reason' }, o.reason)] : null]],
      ['trigger', [link(route('triggers', o.triggerId), h('code', {}, o.triggerId)), ` rev ${o.triggerRevision}`]],
      ['kind', o.kind],
      [
        'auth',
        o.auth
          ? [
              badge(o.auth.state),
              o.auth.sourceId ? [' source ', h('code', {}, o.auth.sourceId)] : null,
              o.auth.keyId ? [' key ', h('code', {}, o.auth.keyId)] : null,
            ]
          : '—',
      ],
      ['external id', o.externalId ? h('code', {}, o.externalId) : '—'],
      ['observed', time(o.observedAt)],
      ['scheduled', time(o.scheduledAt)],
      ['fired', time(o.firedAt)],
      ['decided', time(o.decidedAt)],
      ['execution', o.executionId ? link(route('executions', o.executionId), h('code', {}, o.executionId)) : '—'],
      ['conflicting deliveries', String(o.conflicts ?? 0)],
    ]),
    section('Evidence', h('div', { id: 'evidence' }, json(o.evidence))),
    section('Dedupe identity', json(o.dedupeIdentity)),
    o.members !== undefined ? section('Members', json(o.members)) : null,
    section('Lineage', lineage(o)),
  );
}
