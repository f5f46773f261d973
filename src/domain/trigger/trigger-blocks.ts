import { type GuardClause, validateGuard } from '../guard/guard-clause.js';
import { COALESCE_BOUNDS, type CoalesceRule, validateCoalesceRule } from '../coalescing/coalesce-rule.js';
import type { PrefilterSpec } from '../prefilter/prefilter.js';
import { MAX_PREFILTERS, validatePrefilter } from '../prefilter/registry.js';
import { DEFAULT_DELIVERY_POLICY, DELIVERY_BOUNDS, type DeliveryPolicy } from '../execution/delivery-policy.js';
import { CLASSIFICATION_LEVELS, type Classification } from '../shared/classification.js';
import { FieldReader, isRecord, type Raw } from '../shared/fields.js';
import { isJsonPointer, pointerTo } from '../shared/json-pointer.js';
import {
  MAX_CAUSAL_DEPTH,
  MAX_CONCURRENT,
  MAX_EXECUTIONS_PER_HOUR,
  MAX_RESOURCE_SCOPES,
  scopePattern,
} from '../mission/mission-grants.js';

/** Validators for the optional blocks of a Trigger definition; pointers are absolute in the body. */

export interface SourceBinding {
  sourceId: string;
  /** null: every event type of the source. */
  eventTypes: string[] | null;
}

export interface PollBinding {
  connector: 'http-json@1';
  url: string;
  everySeconds: number;
  itemsPointer: string;
  idPointer: string;
  cursorParam: string | null;
  nextCursorPointer: string | null;
  /** PO-4: an invalid item holds the cursor for an operator, or is quarantined explicitly. */
  onInvalidItem: 'hold' | 'quarantine';
  /** A slower answer is a PollFailed (`timeout`). */
  timeoutSeconds: number;
  /** A longer answer is cut off while it streams in and is a PollFailed (`too_large`): memory stays bounded. */
  maxResponseBytes: number;
  /** Same form as a source's: pointers every item must hold (PO-2). */
  schema: { required: string[] };
  /**
   * `bearer`: each poll sends `Authorization: Bearer <secret>`, the secret set with PUT
   * /v1/triggers/{id}/poll-secret and kept outside the log (decision 7). Absent on revisions older than it.
   */
  auth?: PollAuth | null;
}

export const POLL_AUTH_TYPES = ['bearer'] as const;
export interface PollAuth {
  type: (typeof POLL_AUTH_TYPES)[number];
}

export const POLL_DEFAULTS = { timeoutSeconds: 10, maxResponseBytes: 1_048_576 } as const;
const MAX_POLL_SCHEMA_POINTERS = 64;

/** DD-5: the rule grammar and its bounds live in `src/domain/coalesce`. */
export type { CoalesceRule };

export interface BatchPolicy {
  size: number | null;
  maxWaitMs: number | null;
  partitionPointer: string | null;
}

/** BA-2: the guard grammar lives in `src/domain/guard`; this name is kept for the definition's field. */
export type GuardExpression = GuardClause;

/** AD-4: the registry of versioned prefilters lives in `src/domain/prefilter`. */
export type { PrefilterSpec };

/** TR-2: what a Trigger may do, never more than its Mission grants. */
export interface TriggerConstraints {
  maxExecutionsPerHour: number;
  maxConcurrent: number;
  resourceScopes: string[];
  classification: Classification;
  acceptLowerTrust: boolean;
  /**
   * AD-2: over `maxConcurrent`, an admitted execution waits `pending` for a slot (the default); `block` keeps
   * the admission-time limit for Triggers whose fires are worthless late. Absent when not given.
   */
  onConcurrencyLimit?: OnConcurrencyLimit;
}

export const ON_CONCURRENCY_LIMIT = ['queue', 'block'] as const;
export type OnConcurrencyLimit = (typeof ON_CONCURRENCY_LIMIT)[number];

export function sourceBlock(read: FieldReader, raw: Raw): SourceBinding | undefined {
  read.onlyKnown(raw, '/source', ['sourceId', 'eventTypes']);
  const sourceId = read.string(raw, '/source', 'sourceId');
  const eventTypes =
    raw.eventTypes === undefined || raw.eventTypes === null
      ? null
      : read.array(
          raw,
          '/source',
          'eventTypes',
          (item, at) =>
            typeof item === 'string' && item.length > 0 && item.length <= 256
              ? item
              : read.fail(at, 'must be a non-empty string'),
          { max: 100 },
        );
  return sourceId && eventTypes !== undefined ? { sourceId, eventTypes } : undefined;
}

export function pollBlock(read: FieldReader, raw: Raw): PollBinding | undefined {
  const at = '/poll';
  read.onlyKnown(raw, at, [
    'connector',
    'url',
    'everySeconds',
    'itemsPointer',
    'idPointer',
    'cursorParam',
    'nextCursorPointer',
    'onInvalidItem',
    'timeoutSeconds',
    'maxResponseBytes',
    'schema',
    'auth',
  ]);
  const poll = {
    connector: read.oneOf(raw, at, 'connector', ['http-json@1'] as const),
    url: httpUrl(read, raw.url),
    everySeconds: read.integer(raw, at, 'everySeconds', { min: 1, max: 604_800 }),
    // "": an upstream that answers a bare array (as many list APIs do), or whose items are themselves the ids.
    itemsPointer: read.pointer(raw, at, 'itemsPointer', true, true),
    idPointer: read.pointer(raw, at, 'idPointer', true, true),
    cursorParam: read.string(raw, at, 'cursorParam', { fallback: null }),
    nextCursorPointer: read.pointer(raw, at, 'nextCursorPointer', false),
    onInvalidItem: read.oneOf(raw, at, 'onInvalidItem', ['hold', 'quarantine'] as const, 'hold'),
    timeoutSeconds: read.integer(raw, at, 'timeoutSeconds', {
      min: 1,
      max: 120,
      fallback: POLL_DEFAULTS.timeoutSeconds,
    }),
    maxResponseBytes: read.integer(raw, at, 'maxResponseBytes', {
      min: 1024,
      max: 16 * 1_048_576,
      fallback: POLL_DEFAULTS.maxResponseBytes,
    }),
    schema: pollSchema(read, raw.schema),
    auth: pollAuth(read, raw.auth),
  };
  return Object.values(poll).every((v) => v !== undefined) ? (poll as PollBinding) : undefined;
}

function pollSchema(read: FieldReader, value: unknown): PollBinding['schema'] | undefined {
  const at = '/poll/schema';
  if (value === undefined || value === null) return { required: [] };
  if (!isRecord(value)) return read.fail(at, 'schema must be an object');
  read.onlyKnown(value, at, ['required']);
  const required = read.array(
    value,
    at,
    'required',
    (item, p) => (isJsonPointer(item) ? item : read.fail(p, 'must be a JSON pointer starting with "/"')),
    { max: MAX_POLL_SCHEMA_POINTERS, fallback: [] },
  );
  return required && { required: [...new Set(required)] };
}

function pollAuth(read: FieldReader, value: unknown): PollAuth | null | undefined {
  const at = '/poll/auth';
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) return read.fail(at, 'auth must be an object');
  read.onlyKnown(value, at, ['type']);
  const type = read.oneOf(value, at, 'type', POLL_AUTH_TYPES);
  return type && { type };
}

function httpUrl(read: FieldReader, value: unknown): string | undefined {
  const problem = 'url must be an absolute http(s) URL';
  if (typeof value !== 'string' || value.length > 2048 || !URL.canParse(value)) return read.fail('/poll/url', problem);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return read.fail('/poll/url', problem);
  // A definition is shown to every operator:read token and kept in the log for good: never a credential in it.
  if (url.username !== '' || url.password !== '')
    return read.fail('/poll/url', 'url must not hold credentials; set a bearer secret (auth) instead');
  return value;
}

export function coalesceBlock(read: FieldReader, raw: Raw): CoalesceRule[] | undefined {
  if (raw.coalesce === undefined || raw.coalesce === null) return [];
  return read.array(raw, '', 'coalesce', (item, at) => validateCoalesceRule(read, item, at), {
    max: COALESCE_BOUNDS.maxRules,
  });
}

/** BA-1: a batch's members are read back when it closes, so a batch is bounded. */
export const MAX_BATCH_SIZE = 1000;

export function batchBlock(read: FieldReader, raw: Raw): BatchPolicy | undefined {
  const at = '/batch';
  read.onlyKnown(raw, at, ['size', 'maxWaitMs', 'partitionPointer']);
  if (raw.size == null && raw.maxWaitMs == null) return read.fail(at, 'batch needs size, maxWaitMs or both (BA-1)');
  const size = raw.size == null ? null : read.integer(raw, at, 'size', { min: 1, max: MAX_BATCH_SIZE });
  const maxWaitMs = raw.maxWaitMs == null ? null : read.integer(raw, at, 'maxWaitMs', { min: 1, max: 86_400_000 });
  const partitionPointer = read.pointer(raw, at, 'partitionPointer', false);
  return size !== undefined && maxWaitMs !== undefined && partitionPointer !== undefined
    ? { size, maxWaitMs, partitionPointer }
    : undefined;
}

export function guardExpression(read: FieldReader, value: unknown, at: string): GuardExpression | undefined {
  return validateGuard(read, value, at);
}

export function prefiltersBlock(read: FieldReader, raw: Raw): PrefilterSpec[] | undefined {
  const filters = read.array(raw, '', 'prefilters', (item, at) => validatePrefilter(read, item, at), {
    max: MAX_PREFILTERS,
    fallback: [],
  });
  if (!filters) return undefined;
  const duplicate = filters.findIndex(
    (filter, index) => filters.findIndex((other) => other.id === filter.id) !== index,
  );
  return duplicate === -1
    ? filters
    : read.fail(`/prefilters/${duplicate}/id`, 'prefilter ids must be unique within a Trigger');
}

export function causalityBlock(read: FieldReader, raw: Raw): { maxDepth: number } | undefined {
  read.onlyKnown(raw, '/causality', ['maxDepth']);
  const maxDepth = read.integer(raw, '/causality', 'maxDepth', { min: 0, max: MAX_CAUSAL_DEPTH });
  return maxDepth === undefined ? undefined : { maxDepth };
}

/** Each member is optional here: a missing one inherits the Mission's grant at revision time. */
export function constraintsBlock(read: FieldReader, raw: Raw): Partial<TriggerConstraints> | undefined {
  const at = '/constraints';
  read.onlyKnown(raw, at, [
    'maxExecutionsPerHour',
    'maxConcurrent',
    'resourceScopes',
    'classification',
    'acceptLowerTrust',
    'onConcurrencyLimit',
  ]);
  const out: Partial<TriggerConstraints> = {};
  const before = read.errors.length;
  if (raw.maxExecutionsPerHour != null)
    out.maxExecutionsPerHour = read.integer(raw, at, 'maxExecutionsPerHour', { min: 0, max: MAX_EXECUTIONS_PER_HOUR });
  if (raw.maxConcurrent != null)
    out.maxConcurrent = read.integer(raw, at, 'maxConcurrent', { min: 0, max: MAX_CONCURRENT });
  if (raw.resourceScopes != null)
    out.resourceScopes = read.array(raw, at, 'resourceScopes', (item, p) => scopePattern(read, item, p), {
      max: MAX_RESOURCE_SCOPES,
    });
  if (raw.classification != null) out.classification = read.oneOf(raw, at, 'classification', CLASSIFICATION_LEVELS);
  if (raw.acceptLowerTrust != null) out.acceptLowerTrust = read.boolean(raw, at, 'acceptLowerTrust');
  if (raw.onConcurrencyLimit != null)
    out.onConcurrencyLimit = read.oneOf(raw, at, 'onConcurrencyLimit', ON_CONCURRENCY_LIMIT);
  return read.errors.length === before ? out : undefined;
}

/** A fresh copy of the defaults, so no stored definition shares (frozen) objects with another. */
export const defaultDelivery = (): DeliveryPolicy => ({
  ...DEFAULT_DELIVERY_POLICY,
  backoff: { ...DEFAULT_DELIVERY_POLICY.backoff },
});

/** EX-4/EX-5: every member optional, each default written out; `null` limits mean none declared. */
export function deliveryBlock(read: FieldReader, raw: Raw): DeliveryPolicy | undefined {
  const at = '/delivery';
  const defaults = DEFAULT_DELIVERY_POLICY;
  read.onlyKnown(raw, at, ['maxAttempts', 'backoff', 'claimWithinSeconds', 'maxRuntimeSeconds', 'budgetUnits']);
  const before = read.errors.length;
  const backoffRaw = read.object(raw, at, 'backoff', false);
  const delivery = {
    maxAttempts: read.integer(raw, at, 'maxAttempts', {
      ...DELIVERY_BOUNDS.maxAttempts,
      fallback: defaults.maxAttempts,
    }),
    backoff: backoffRaw === undefined ? undefined : backoffBlock(read, backoffRaw ?? {}),
    claimWithinSeconds: read.number(raw, at, 'claimWithinSeconds', {
      ...DELIVERY_BOUNDS.claimWithinSeconds,
      fallback: defaults.claimWithinSeconds,
    }),
    maxRuntimeSeconds:
      raw.maxRuntimeSeconds == null
        ? null
        : read.integer(raw, at, 'maxRuntimeSeconds', DELIVERY_BOUNDS.maxRuntimeSeconds),
    budgetUnits: raw.budgetUnits == null ? null : read.integer(raw, at, 'budgetUnits', DELIVERY_BOUNDS.budgetUnits),
  };
  return read.errors.length === before ? (delivery as DeliveryPolicy) : undefined;
}

function backoffBlock(read: FieldReader, raw: Raw): DeliveryPolicy['backoff'] | undefined {
  const at = '/delivery/backoff';
  const defaults = DEFAULT_DELIVERY_POLICY.backoff;
  read.onlyKnown(raw, at, ['initialSeconds', 'multiplier', 'maxSeconds']);
  const initialSeconds = read.number(raw, at, 'initialSeconds', {
    ...DELIVERY_BOUNDS.initialSeconds,
    fallback: defaults.initialSeconds,
  });
  const multiplier = read.number(raw, at, 'multiplier', {
    ...DELIVERY_BOUNDS.multiplier,
    fallback: defaults.multiplier,
  });
  const maxSeconds = read.number(raw, at, 'maxSeconds', {
    ...DELIVERY_BOUNDS.maxSeconds,
    fallback: defaults.maxSeconds,
  });
  if (initialSeconds === undefined || multiplier === undefined || maxSeconds === undefined) return undefined;
  // A cap below the first wait would silently replace the wait asked for: say so instead.
  if (maxSeconds < initialSeconds)
    return read.fail(`${at}/maxSeconds`, `maxSeconds must be at least initialSeconds (${initialSeconds})`);
  return { initialSeconds, multiplier, maxSeconds };
}
