import {
  asciiLower,
  hasHeader,
  indexHeaders,
  malformed,
  singleHeader,
  type HeaderInput,
  type MalformedRequest,
} from './headers.js';

/** WH-2: two parsers disagreeing about one body is how a verified payload gets reinterpreted, so doubt is a 400. */

export type PayloadFormat = 'json' | 'cloudevents-structured' | 'cloudevents-binary';
export type ContentTypeResult = { readonly ok: true; readonly format: PayloadFormat } | MalformedRequest;

/** The attributes the CloudEvents HTTP binding requires in binary mode. */
export const CLOUDEVENTS_BINARY_REQUIRED = ['ce-specversion', 'ce-id', 'ce-type', 'ce-source'] as const;
const SUPPORTED_SPEC_VERSION = '1.0';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

interface MediaType {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

/** RFC 9110 media-type grammar, strictly; anything else (lists, stray bytes) is rejected. */
function parseMediaType(value: string): MediaType | null {
  const [full, ...rawParams] = value.split(';');
  const type = asciiLower((full ?? '').trim());
  const slash = type.indexOf('/');
  if (slash <= 0 || !TOKEN.test(type.slice(0, slash)) || !TOKEN.test(type.slice(slash + 1))) return null;
  const params = new Map<string, string>();
  for (const raw of rawParams) {
    const match = /^[ \t]*([^=\s]+)=("(?:[^"\\]|\\.)*"|[^";\s]+)[ \t]*$/.exec(raw);
    if (!match) return null;
    const name = asciiLower(match[1] as string);
    if (!TOKEN.test(name) || params.has(name)) return null;
    let paramValue = match[2] as string;
    if (paramValue.startsWith('"')) paramValue = paramValue.slice(1, -1).replace(/\\(.)/g, '$1');
    else if (!TOKEN.test(paramValue)) return null;
    params.set(name, paramValue);
  }
  return { type, params };
}

export function classifyContentType(headers: HeaderInput): ContentTypeResult {
  const indexed = indexHeaders(headers);
  if (!indexed.ok) return indexed;
  const index = indexed.index;
  const header = singleHeader(index, 'content-type');
  if (!header.ok) return header;
  if (header.value === null || header.value === '') return malformed('header content-type is required');
  // A comma can only mean a list or a join of two headers; quoted-string commas are not worth the ambiguity.
  if (header.value.includes(',')) return malformed('header content-type holds more than one value');
  const media = parseMediaType(header.value);
  if (!media) return malformed('header content-type is not a valid media type');

  for (const [name, value] of media.params) {
    // Any other charset would make the signed bytes and the parsed text two different documents.
    if (name !== 'charset' || asciiLower(value) !== 'utf-8') {
      return malformed('header content-type allows only charset=utf-8 as a parameter');
    }
  }

  if (media.type === 'application/cloudevents+json') {
    // The HTTP binding allows ce-* headers beside a structured event: the body is the event.
    return { ok: true, format: 'cloudevents-structured' };
  }
  if (media.type !== 'application/json')
    return malformed('header content-type must be application/json or application/cloudevents+json');

  const present = CLOUDEVENTS_BINARY_REQUIRED.filter((name) => hasHeader(index, name));
  if (present.length === 0) return { ok: true, format: 'json' };
  // Some but not all required attributes: neither a plain JSON delivery nor a valid binary event.
  if (present.length !== CLOUDEVENTS_BINARY_REQUIRED.length) {
    return malformed('binary-mode CloudEvent is missing required ce-* headers');
  }
  for (const name of CLOUDEVENTS_BINARY_REQUIRED) {
    const attribute = singleHeader(index, name);
    if (!attribute.ok) return attribute;
    if (attribute.value === null || attribute.value === '') return malformed(`header ${name} is empty`);
  }
  const specVersion = singleHeader(index, 'ce-specversion');
  if (!specVersion.ok || specVersion.value !== SUPPORTED_SPEC_VERSION)
    return malformed('header ce-specversion must be 1.0');
  return { ok: true, format: 'cloudevents-binary' };
}
