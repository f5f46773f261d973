/**
 * The only way the dashboard builds markup: elements by tag name, attributes by name from this code, and every
 * value as a text node. API values (Trigger ids, reasons, evidence) are data and can never become markup, so a
 * hostile `<img onerror>` in a reason shows as those characters (OP-4; no innerHTML anywhere).
 */
export type Child = Node | string | number | boolean | null | undefined | Child[];
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

/** Links inside the dashboard only: a hash route (`#/…`) built by this code with encoded ids. */
const SAFE_HREF = /^#\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$/;

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'href' && !SAFE_HREF.test(String(value))) element.setAttribute('href', '#/');
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

/** `#/triggers/<id>`: every path segment encoded, so an id can never leave its segment. */
export function route(...segments: Array<string | number>): string {
  return `#/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

/** A route with a query: `?key=value` pairs encoded, empty values left out. */
export function withQuery(base: string, query: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}

export const link = (href: string, ...children: Child[]) => h('a', { href }, ...children);

/** A table with a header row; `rows` are arrays of cells. */
export function table(id: string, headers: string[], rows: Child[][], empty = 'Nothing here yet.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty', id }, empty);
  return h(
    'table',
    { id },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((label) => h('th', { scope: 'col' }, label)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) =>
        h(
          'tr',
          {},
          cells.map((cell) => h('td', {}, cell)),
        ),
      ),
    ),
  );
}

/** Label/value pairs of one resource. */
export function fields(pairs: Array<[string, Child]>): HTMLElement {
  return h(
    'dl',
    { class: 'fields' },
    pairs.map(([label, value]) => [h('dt', {}, label), h('dd', {}, value ?? '—')]),
  );
}

/** Times as the API sends them (UTC), shortened for reading; the full value in the tooltip. */
export function time(value: string | null | undefined): Child {
  if (!value) return '—';
  return h('time', { datetime: value, title: value }, value.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z'));
}

/** Any JSON value, indented, as text. */
export function json(value: unknown): HTMLElement {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2) ?? 'null');
}

export function badge(value: string | null | undefined, kind = value ?? 'none'): HTMLElement {
  return h('span', { class: `badge badge-${kind.replace(/[^a-z_]/g, '')}` }, value ?? '—');
}

export const section = (title: string, ...children: Child[]) => h('section', {}, h('h2', {}, title), ...children);
