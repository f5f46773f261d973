import { getJson } from '../api.js';
import { badge, fields, h, json, link, route, section, time } from '../dom.js';
import type { Route } from '../router.js';
import type { Occurrence } from '../types.js';
import { descendantsPageSize, fetchLineage, lineageSection } from './lineage-section.js';

/** OP-2: one Occurrence with its evidence, decision and reason, linked execution and causal lineage. */
export async function occurrencePage({ segments, query }: Route): Promise<Node> {
  const limit = descendantsPageSize(query);
  const [o, lineage] = await Promise.all([
    getJson<Occurrence>(['operator', 'occurrences', segments[1]!]),
    fetchLineage(segments[1]!, limit),
  ]);
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
    h('section', { id: 'lineage' }, h('h2', {}, 'Lineage'), lineageSection(o, lineage, limit)),
  );
}
