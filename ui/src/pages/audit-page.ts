import { getJson } from '../api.js';
import { type Child, h, json, link, route, table, time, withQuery } from '../dom.js';
import type { Route } from '../router.js';
import type { AuditEvent } from '../types.js';

const PAGE = 50;

/** The event's body behind a disclosure, so a page of events stays readable. */
const body = (event: AuditEvent): Child =>
  h('details', {}, h('summary', {}, 'data, metadata'), json({ data: event.data, metadata: event.metadata }));

const hash = (value: string | null) => (value ? h('code', { title: value }, `${value.slice(0, 12)}…`) : '—');

function streamForm(current = ''): HTMLElement {
  const input = h('input', {
    name: 'streamId',
    value: current,
    placeholder: 'stream id, e.g. trigger-3f2a…',
    'aria-label': 'stream id',
    size: 60,
  }) as HTMLInputElement;
  return h(
    'form',
    {
      class: 'filters',
      id: 'stream-form',
      onsubmit: (event: Event) => {
        event.preventDefault();
        if (input.value.trim()) location.hash = route('audit', 'streams', input.value.trim());
      },
    },
    input,
    h('button', { type: 'submit' }, 'Open stream'),
  );
}

/** AU-1: the tenant's log in global order, a page at a time from `after`; each stream id opens that stream. */
async function feedPage(query: URLSearchParams): Promise<Node> {
  const after = query.get('after') ?? '0';
  const feed = await getJson<{ events: AuditEvent[]; next: number | null }>(['audit', 'events'], {
    after,
    limit: PAGE,
  });
  const rows = feed.events.map((e) => [
    String(e.position),
    link(route('audit', 'streams', e.streamId), h('code', {}, e.streamId)),
    String(e.revision),
    h('code', {}, e.type),
    time(e.recordedAt),
    body(e),
  ]);
  return h(
    'div',
    {},
    h('h1', {}, 'Audit log'),
    streamForm(),
    table(
      'audit-events',
      ['Position', 'Stream', 'Revision', 'Type', 'Recorded', 'Body'],
      rows,
      'No events after this position.',
    ),
    h(
      'nav',
      { class: 'pager' },
      after !== '0' ? link(route('audit'), 'From the start') : null,
      feed.next !== null ? link(withQuery(route('audit'), { after: feed.next }), 'Next page →') : null,
    ),
  );
}

/** AU-1/AU-2: one stream in revision order with each event's hash and its predecessor's. */
async function streamPage(streamId: string, query: URLSearchParams): Promise<Node> {
  const fromRevision = query.get('fromRevision') ?? '0';
  const stream = await getJson<{ streamId: string; events: AuditEvent[]; nextRevision?: number | null }>(
    ['audit', 'streams', streamId],
    { fromRevision, limit: PAGE },
  );
  const rows = stream.events.map((e) => [
    String(e.revision),
    String(e.position),
    h('code', {}, e.type),
    time(e.recordedAt),
    [hash(e.hash), h('div', { class: 'muted' }, 'prev ', hash(e.prevHash))],
    body(e),
  ]);
  const next = stream.nextRevision ?? null;
  return h(
    'div',
    {},
    h('h1', {}, 'Stream ', h('code', {}, stream.streamId)),
    streamForm(stream.streamId),
    table(
      'stream-events',
      ['Revision', 'Position', 'Type', 'Recorded', 'Hash', 'Body'],
      rows,
      'No events from this revision.',
    ),
    h(
      'nav',
      { class: 'pager' },
      link(route('audit'), '← Audit log'),
      next !== null
        ? link(withQuery(route('audit', 'streams', stream.streamId), { fromRevision: next }), 'Next page →')
        : null,
    ),
  );
}

export function auditPage({ segments, query }: Route): Promise<Node> {
  return segments[1] === 'streams' && segments[2] ? streamPage(segments[2], query) : feedPage(query);
}
