import { FieldReader, isRecord } from '../shared/fields.js';
import { isJsonPointer } from '../shared/json-pointer.js';
import type { Validation } from '../shared/result.js';

export const SOURCE_SCHEMES = ['standard-webhooks', 'github-hmac-sha256', 'unsigned'] as const;
export type SourceSchemeName = (typeof SOURCE_SCHEMES)[number];

export const PAYLOAD_FORMATS = ['json', 'cloudevents'] as const;
export type SourcePayloadFormat = (typeof PAYLOAD_FORMATS)[number];

/** Every default written out, so a revision is the whole truth. */
export interface SourceDefinition {
  scheme: SourceSchemeName;
  /** WH-4: accepted clock skew in both directions, seconds. */
  toleranceSeconds: number;
  /** WH-1: hard cap on the raw body, enforced before buffering. */
  maxBodyBytes: number;
  /** WH-8: token bucket per source. */
  rateLimit: { perSecond: number; burst: number };
  /** Where the event type sits in the payload; null for github-hmac-sha256 (X-GitHub-Event) or untyped sources. */
  eventTypePointer: string | null;
  /** The delivery id comes from the scheme's header (`webhook-id`, `X-GitHub-Delivery`); nothing else yet. */
  deliveryIdFrom: 'header';
  correlationPointer: string | null;
  /** WH-6: members that must exist in the parsed payload. */
  schema: { required: string[] };
  format: SourcePayloadFormat;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;
export const DEFAULT_MAX_BODY_BYTES = 262_144;
export const MAX_MAX_BODY_BYTES = 1_048_576;
export const DEFAULT_RATE_LIMIT = { perSecond: 50, burst: 100 } as const;
export const MAX_RATE = 100_000;
export const MAX_SCHEMA_POINTERS = 64;

const DEFINITION_KEYS = [
  'scheme',
  'toleranceSeconds',
  'maxBodyBytes',
  'rateLimit',
  'eventTypePointer',
  'deliveryIdFrom',
  'correlationPointer',
  'schema',
  'format',
];
/** Members of the PUT body that are not definition content; tolerated and ignored here. */
const ENVELOPE_KEYS = ['expectedRevision', 'reason', 'sourceId'];

/**
 * GitHub-style sources name their event type in a header, so an `eventTypePointer` would be a second,
 * conflicting answer. CloudEvents come only from verified sources (WH-10): `unsigned` + `cloudevents` is refused.
 */
export function validateSourceDefinition(raw: unknown): Validation<SourceDefinition> {
  if (!isRecord(raw)) return { ok: false, errors: [{ pointer: '', message: 'a source definition must be an object' }] };
  const read = new FieldReader();
  read.onlyKnown(raw, '', [...DEFINITION_KEYS, ...ENVELOPE_KEYS]);
  const scheme = read.oneOf(raw, '', 'scheme', SOURCE_SCHEMES);
  const definition = {
    scheme,
    toleranceSeconds: read.integer(raw, '', 'toleranceSeconds', {
      min: 1,
      max: 3600,
      fallback: DEFAULT_TOLERANCE_SECONDS,
    }),
    maxBodyBytes: read.integer(raw, '', 'maxBodyBytes', {
      min: 1,
      max: MAX_MAX_BODY_BYTES,
      fallback: DEFAULT_MAX_BODY_BYTES,
    }),
    rateLimit: rateLimit(read, raw.rateLimit),
    eventTypePointer: eventTypePointer(read, raw, scheme),
    deliveryIdFrom: read.oneOf(raw, '', 'deliveryIdFrom', ['header'] as const, 'header'),
    correlationPointer: read.pointer(raw, '', 'correlationPointer', false),
    schema: schema(read, raw.schema),
    format: read.oneOf(raw, '', 'format', PAYLOAD_FORMATS, 'json'),
  };
  if (scheme === 'unsigned' && definition.format === 'cloudevents')
    read.fail('/format', 'cloudevents are accepted only from signed sources (WH-10)');
  if (read.errors.length > 0) return { ok: false, errors: read.errors };
  return { ok: true, value: definition as SourceDefinition };
}

function rateLimit(read: FieldReader, value: unknown): SourceDefinition['rateLimit'] | undefined {
  if (value === undefined || value === null) return { ...DEFAULT_RATE_LIMIT };
  if (!isRecord(value)) return read.fail('/rateLimit', 'rateLimit must be an object');
  read.onlyKnown(value, '/rateLimit', ['perSecond', 'burst']);
  const perSecond = read.integer(value, '/rateLimit', 'perSecond', {
    min: 1,
    max: MAX_RATE,
    fallback: DEFAULT_RATE_LIMIT.perSecond,
  });
  const burst = read.integer(value, '/rateLimit', 'burst', {
    min: 1,
    max: MAX_RATE,
    fallback: DEFAULT_RATE_LIMIT.burst,
  });
  return perSecond !== undefined && burst !== undefined ? { perSecond, burst } : undefined;
}

function eventTypePointer(
  read: FieldReader,
  raw: Record<string, unknown>,
  scheme: SourceSchemeName | undefined,
): string | null | undefined {
  const given = raw.eventTypePointer;
  if (scheme === 'github-hmac-sha256') {
    return given === undefined || given === null
      ? null
      : read.fail(
          '/eventTypePointer',
          'github-hmac-sha256 sources take the event type from the X-GitHub-Event header; leave eventTypePointer null',
        );
  }
  if (given === undefined) return '/type';
  return read.pointer(raw, '', 'eventTypePointer', false);
}

function schema(read: FieldReader, value: unknown): SourceDefinition['schema'] | undefined {
  if (value === undefined || value === null) return { required: [] };
  if (!isRecord(value)) return read.fail('/schema', 'schema must be an object');
  read.onlyKnown(value, '/schema', ['required']);
  const required = read.array(
    value,
    '/schema',
    'required',
    (item, at) => (isJsonPointer(item) ? item : read.fail(at, 'must be a JSON pointer starting with "/"')),
    {
      max: MAX_SCHEMA_POINTERS,
      fallback: [],
    },
  );
  return required && { required: [...new Set(required)] };
}
