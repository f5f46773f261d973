/**
 * WH-2: a duplicated header is never resolved by picking one copy, so an attacker cannot choose which signature,
 * id or timestamp we believe. Pass `rawHeaders`: Node's parsed record silently drops or joins later copies.
 */

export type IncomingHeadersLike = Readonly<Record<string, string | readonly string[] | undefined>>;

export type HeaderInput =
  readonly string[] | { readonly rawHeaders?: readonly string[]; readonly headers?: IncomingHeadersLike };

export interface MalformedRequest {
  readonly ok: false;
  readonly status: 400;
  readonly code: 'malformed_request';
  /** Names the header only — never echoes attacker-supplied values (WH-9). */
  readonly detail: string;
}

export interface HeaderIndex {
  /** Every copy of the header, in arrival order; empty when absent. */
  values(name: string): readonly string[];
  /** True when the index came from a record that may have joined duplicates with ", ". */
  readonly joinedDuplicatesPossible: boolean;
}

export type SingleHeader = { readonly ok: true; readonly value: string | null } | MalformedRequest;

export function malformed(detail: string): MalformedRequest {
  return { ok: false, status: 400, code: 'malformed_request', detail };
}

/** `toLowerCase` maps KELVIN SIGN (U+212A) to "k", which would let another header pass as `webhook-id`. */
export function asciiLower(name: string): string {
  return name.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

// RFC 9110 optional whitespace around a field value is not part of the value.
function trimOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

export function indexHeaders(input: HeaderInput): { ok: true; index: HeaderIndex } | MalformedRequest {
  const raw = isFlatList(input) ? input : input.rawHeaders;
  if (raw !== undefined) return indexRaw(raw);
  return indexRecord((input as { headers?: IncomingHeadersLike }).headers ?? {});
}

function isFlatList(input: HeaderInput): input is readonly string[] {
  return Array.isArray(input);
}

function indexRaw(raw: readonly string[]): { ok: true; index: HeaderIndex } | MalformedRequest {
  if (raw.length % 2 !== 0) return malformed('header list has a name without a value');
  const map = new Map<string, string[]>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const value = raw[i + 1];
    if (typeof name !== 'string' || typeof value !== 'string') return malformed('header list holds a non-string entry');
    const key = asciiLower(name);
    const list = map.get(key);
    if (list) list.push(trimOws(value));
    else map.set(key, [trimOws(value)]);
  }
  return { ok: true, index: { values: (n) => map.get(asciiLower(n)) ?? [], joinedDuplicatesPossible: false } };
}

function indexRecord(record: IncomingHeadersLike): { ok: true; index: HeaderIndex } | MalformedRequest {
  const map = new Map<string, string[]>();
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const key = asciiLower(name);
    const incoming = typeof value === 'string' ? [value] : [...value];
    if (incoming.some((v) => typeof v !== 'string')) return malformed(`header ${key} holds a non-string value`);
    // Two record keys differing only in case are two copies of one header.
    map.set(key, [...(map.get(key) ?? []), ...incoming.map(trimOws)]);
  }
  return { ok: true, index: { values: (n) => map.get(asciiLower(n)) ?? [], joinedDuplicatesPossible: true } };
}

/** An empty value counts as present: the caller decides whether empty is acceptable. */
export function singleHeader(index: HeaderIndex, name: string): SingleHeader {
  const values = index.values(name);
  if (values.length === 0) return { ok: true, value: null };
  const lower = asciiLower(name);
  if (values.length > 1) return malformed(`header ${lower} appears more than once`);
  const value = values[0] as string;
  // Without rawHeaders a ", " join looks like a list; no single-valued header we read holds one legitimately.
  if (index.joinedDuplicatesPossible && /,[ \t]/.test(value))
    return malformed(`header ${lower} appears more than once`);
  return { ok: true, value };
}

export function hasHeader(index: HeaderIndex, name: string): boolean {
  return index.values(name).length > 0;
}
