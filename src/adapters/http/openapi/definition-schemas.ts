import { DELIVERY_BOUNDS, DEFAULT_DELIVERY_POLICY } from '../../../domain/execution/delivery-policy.js';
import { GUARD_BOUNDS } from '../../../domain/guard/guard-clause.js';
import { COALESCE_BOUNDS, COALESCE_MODES } from '../../../domain/coalescing/coalesce-rule.js';
import {
  MAX_CAUSAL_DEPTH,
  MAX_CONCURRENT,
  MAX_EXECUTIONS_PER_HOUR,
  MAX_RESOURCE_SCOPES,
  MISSION_STATES,
} from '../../../domain/mission/mission-grants.js';
import { MAX_PREFILTERS } from '../../../domain/prefilter/registry.js';
import { WEEKDAYS } from '../../../domain/prefilter/window.js';
import {
  DEFAULT_GRACE_SECONDS,
  MAX_CATCH_UP_BOUND,
  MAX_EXPRESSION_LENGTH,
  MAX_GRACE_SECONDS,
} from '../../../domain/schedule/schedule-definition.js';
import { ENGINE_VERSIONS } from '../../../domain/schedule/tzdata.js';
import { CLASSIFICATION_LEVELS } from '../../../domain/shared/classification.js';
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RATE_LIMIT,
  DEFAULT_TOLERANCE_SECONDS,
  MAX_MAX_BODY_BYTES,
  MAX_RATE,
  MAX_SCHEMA_POINTERS,
  PAYLOAD_FORMATS,
  SOURCE_SCHEMES,
} from '../../../domain/source/source-definition.js';
import { DEFAULT_PREVIEW_COUNT, MAX_PREVIEW_COUNT } from '../controllers/schedule-preview.js';
import { ON_CONCURRENCY_LIMIT, POLL_AUTH_TYPES, POLL_DEFAULTS } from '../../../domain/trigger/trigger-blocks.js';
import {
  DEDUPE_STRATEGIES,
  DEFAULT_WINDOW_SECONDS,
  TRIGGER_TYPES,
} from '../../../domain/trigger/trigger-definition.js';
import {
  anyJson,
  array,
  bool,
  int,
  INSTANT,
  NAME,
  nullable,
  num,
  obj,
  oneOfStrings,
  POINTER,
  POINTER_OR_ROOT,
  RESOURCE_ID,
  str,
  type SchemaObject,
} from './schema.js';

/**
 * The definition bodies as the domain validators read them (src/domain/*: members, enums, bounds and defaults
 * come from the same constants). The validators stay the judges: what this schema cannot say (a cron
 * expression, a known zone, a Trigger within its Mission) is 422 `invalid_definition` or `authority_widening`.
 */
const envelope = {
  expectedRevision: int(0, undefined, { description: '0 = must not exist; omitted = unconditional' }),
  reason: str({ maxLength: 2000 }),
};

const SCOPE = str({ minLength: 1, maxLength: 512, pattern: '^[^*]*\\*?$', description: '"*" only at the end' });
const scopes = array(SCOPE, MAX_RESOURCE_SCOPES);
const classification = oneOfStrings(CLASSIFICATION_LEVELS);
const pointers = (max: number) => obj({ required: array(POINTER, max) }, [], { closed: true });

export const missionDefinitionSchema: SchemaObject = obj(
  {
    ...envelope,
    missionId: RESOURCE_ID,
    state: oneOfStrings(MISSION_STATES, { description: '`cancelled` and `revoked` are terminal' }),
    grants: obj(
      {
        maxExecutionsPerHour: int(0, MAX_EXECUTIONS_PER_HOUR),
        maxConcurrent: int(0, MAX_CONCURRENT),
        resourceScopes: scopes,
        classification,
        acceptLowerTrust: bool('default false'),
        maxCausalDepth: int(0, MAX_CAUSAL_DEPTH),
      },
      ['maxExecutionsPerHour', 'maxConcurrent', 'resourceScopes', 'classification', 'maxCausalDepth'],
      { closed: true },
    ),
  },
  ['state', 'grants'],
  { closed: true },
);

export const sourceDefinitionSchema: SchemaObject = obj(
  {
    ...envelope,
    sourceId: RESOURCE_ID,
    scheme: oneOfStrings(SOURCE_SCHEMES),
    toleranceSeconds: int(1, 3600, { default: DEFAULT_TOLERANCE_SECONDS }),
    maxBodyBytes: int(1, MAX_MAX_BODY_BYTES, { default: DEFAULT_MAX_BODY_BYTES }),
    rateLimit: nullable(
      obj({
        perSecond: int(1, MAX_RATE, { default: DEFAULT_RATE_LIMIT.perSecond }),
        burst: int(1, MAX_RATE, { default: DEFAULT_RATE_LIMIT.burst }),
      }),
    ),
    eventTypePointer: nullable({ ...POINTER, description: 'default "/type"; null for github-hmac-sha256' }),
    deliveryIdFrom: oneOfStrings(['header'], { default: 'header' }),
    correlationPointer: nullable(POINTER),
    schema: nullable(pointers(MAX_SCHEMA_POINTERS)),
    format: oneOfStrings(PAYLOAD_FORMATS, { default: 'json', description: 'cloudevents only from signed sources' }),
  },
  ['scheme'],
  { closed: true },
);

export const scheduleSchema: SchemaObject = obj(
  {
    engine: oneOfStrings(ENGINE_VERSIONS),
    expression: str({
      minLength: 1,
      maxLength: MAX_EXPRESSION_LENGTH,
      description: 'cron@1: five fields read in `timezone`; interval@1: ISO-8601 duration ≥ PT1S',
    }),
    timezone: str({ description: 'IANA zone, e.g. Europe/Berlin' }),
    start: nullable({ ...INSTANT, description: 'required by interval@1 (its anchor)' }),
    end: nullable(INSTANT),
    dst: nullable(
      obj(
        {
          nonexistent: oneOfStrings(['shift_forward', 'skip'], { default: 'shift_forward' }),
          ambiguous: oneOfStrings(['earlier', 'later', 'both'], { default: 'earlier' }),
        },
        [],
        { closed: true },
      ),
    ),
    missed: nullable(
      obj(
        {
          policy: oneOfStrings(['skip', 'latest', 'catch_up'], { default: 'skip' }),
          bound: int(1, MAX_CATCH_UP_BOUND, { description: 'required by catch_up' }),
          overflow: oneOfStrings(['hold', 'skip_rest']),
          graceSeconds: int(0, MAX_GRACE_SECONDS, { default: DEFAULT_GRACE_SECONDS }),
        },
        [],
        { closed: true },
      ),
    ),
  },
  ['engine', 'expression', 'timezone'],
  { closed: true },
);

/** Recursive, so it lives in components (added by completeDocument) and is referenced. */
export const GUARD_REF: SchemaObject = { $ref: '#/components/schemas/GuardClause' } as SchemaObject;
export const guardClauseSchema: SchemaObject = {
  description: `{all|any: [clause…]}, {not: clause} or {pointer, one test}; at most ${GUARD_BOUNDS.maxClauses} clauses, ${GUARD_BOUNDS.maxDepth} deep`,
  oneOf: [
    obj({ all: array(GUARD_REF, GUARD_BOUNDS.maxListItems, { minItems: 1 }) }, ['all'], { closed: true }),
    obj({ any: array(GUARD_REF, GUARD_BOUNDS.maxListItems, { minItems: 1 }) }, ['any'], { closed: true }),
    obj({ not: GUARD_REF }, ['not'], { closed: true }),
    ...(
      [
        ['equals', anyJson('compared as canonical JSON')],
        ['in', array(anyJson('a listed value'), GUARD_BOUNDS.maxInItems)],
        ['exists', bool()],
        ['prefix', str()],
        ['gt', num()],
        ['gte', num()],
        ['lt', num()],
        ['lte', num()],
      ] as const
    ).map(([test, value]) => obj({ pointer: POINTER, [test]: value }, ['pointer', test], { closed: true })),
  ],
};

const prefilter = (id: string, members: Record<string, SchemaObject>, required: string[]) =>
  obj({ id: oneOfStrings([id]), version: int(1, 1), ...members }, ['id', 'version', ...required], { closed: true });
const CLOCK = str({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$', description: 'HH:MM' });

const prefilters = array(
  {
    oneOf: [
      prefilter('unchanged', { resourcePointer: POINTER, digestPointer: POINTER }, [
        'resourcePointer',
        'digestPointer',
      ]),
      prefilter('relevant', { pointer: POINTER, in: array(anyJson('a relevant value')) }, ['pointer', 'in']),
      prefilter(
        'window',
        {
          timezone: str(),
          days: array(oneOfStrings(WEEKDAYS), WEEKDAYS.length, { minItems: 1, uniqueItems: true }),
          from: CLOCK,
          until: CLOCK,
        },
        ['timezone', 'days', 'from', 'until'],
      ),
    ],
  },
  MAX_PREFILTERS,
);

const bounded = (key: keyof typeof DELIVERY_BOUNDS, integer: boolean) => {
  const { min, max } = DELIVERY_BOUNDS[key];
  return integer ? int(min, max) : num(min, max);
};

const triggerBlocks: Record<string, SchemaObject> = {
  missionId: { ...NAME, description: 'the Mission this Trigger acts for' },
  type: oneOfStrings(TRIGGER_TYPES, { description: 'only the block of this type is required' }),
  enabled: bool('default true'),
  source: nullable(
    obj(
      {
        sourceId: NAME,
        eventTypes: nullable(array(str({ minLength: 1, maxLength: 256 }), 100, { description: 'null: every type' })),
      },
      ['sourceId'],
      { closed: true },
    ),
  ),
  schedule: nullable(scheduleSchema),
  poll: nullable(
    obj(
      {
        connector: oneOfStrings(['http-json@1']),
        url: str({ maxLength: 2048, format: 'uri', description: 'absolute http(s) URL' }),
        everySeconds: int(1, 604_800),
        itemsPointer: POINTER_OR_ROOT,
        idPointer: POINTER_OR_ROOT,
        cursorParam: nullable(NAME),
        nextCursorPointer: nullable(POINTER),
        onInvalidItem: oneOfStrings(['hold', 'quarantine'], { default: 'hold' }),
        timeoutSeconds: int(1, 120, { default: POLL_DEFAULTS.timeoutSeconds }),
        maxResponseBytes: int(1024, 16 * 1_048_576, { default: POLL_DEFAULTS.maxResponseBytes }),
        schema: nullable(pointers(64)),
        auth: nullable(
          obj({ type: oneOfStrings(POLL_AUTH_TYPES) }, ['type'], {
            closed: true,
            description:
              'bearer: polls send `Authorization: Bearer <secret>`, the secret set with PUT /v1/triggers/{triggerId}/poll-secret',
          }),
        ),
      },
      ['connector', 'url', 'everySeconds', 'itemsPointer', 'idPointer'],
      { closed: true },
    ),
  ),
  dedupe: nullable(
    obj(
      {
        strategy: oneOfStrings(DEDUPE_STRATEGIES, { description: "default: the type's own delivery id" }),
        keyPointer: nullable({ ...POINTER, description: 'required by payload-key@1' }),
        subjectPointer: nullable(POINTER),
        windowSeconds: int(1, 31_536_000, { default: DEFAULT_WINDOW_SECONDS }),
        onRevision: oneOfStrings(['retain', 'reset'], { default: 'retain' }),
      },
      [],
      { closed: true },
    ),
  ),
  coalesce: nullable(
    array(
      obj(
        {
          match: GUARD_REF,
          mode: oneOfStrings(COALESCE_MODES),
          windowMs: int(COALESCE_BOUNDS.minWindowMs, COALESCE_BOUNDS.maxWindowMs),
          resourcePointer: nullable({
            ...POINTER,
            description: 'one group per value (a string or number); null: one group',
          }),
          neverCoalesce: { nullable: true, allOf: [GUARD_REF], description: 'true: decided alone at once (DD-5)' },
        },
        ['match', 'mode', 'windowMs'],
        { closed: true },
      ),
      COALESCE_BOUNDS.maxRules,
    ),
  ),
  batch: nullable(
    obj(
      {
        size: nullable(int(1, 10_000)),
        maxWaitMs: nullable(int(1, 86_400_000)),
        partitionPointer: nullable(POINTER),
      },
      [],
      {
        closed: true,
        description:
          "size, maxWaitMs or both (BA-1); with coalesce rules too, coalescing comes first and a closed group's representative joins the batch (DD-5)",
      },
    ),
  ),
  overlap: oneOfStrings(['allow', 'skip'], { default: 'allow' }),
  queueByPointer: nullable(POINTER),
  guard: { nullable: true, allOf: [GUARD_REF] },
  prefilters: nullable(prefilters),
  causality: nullable(obj({ maxDepth: int(0, MAX_CAUSAL_DEPTH) }, ['maxDepth'], { closed: true })),
  constraints: nullable(
    obj(
      {
        maxExecutionsPerHour: int(0, MAX_EXECUTIONS_PER_HOUR),
        maxConcurrent: int(0, MAX_CONCURRENT),
        resourceScopes: scopes,
        classification,
        acceptLowerTrust: bool(),
        onConcurrencyLimit: oneOfStrings(ON_CONCURRENCY_LIMIT),
      },
      [],
      { closed: true, description: "a member not given inherits the Mission's grant; wider is authority_widening" },
    ),
  ),
  acceptOlderRevisions: bool('default false (AD-2)'),
  delivery: nullable(
    obj(
      {
        maxAttempts: { ...bounded('maxAttempts', true), default: DEFAULT_DELIVERY_POLICY.maxAttempts },
        backoff: nullable(
          obj(
            {
              initialSeconds: bounded('initialSeconds', false),
              multiplier: bounded('multiplier', false),
              maxSeconds: bounded('maxSeconds', false),
            },
            [],
            { closed: true },
          ),
        ),
        claimWithinSeconds: bounded('claimWithinSeconds', false),
        maxRuntimeSeconds: nullable(bounded('maxRuntimeSeconds', true)),
        budgetUnits: nullable(bounded('budgetUnits', true)),
      },
      [],
      { closed: true },
    ),
  ),
};

export const triggerDefinitionSchema: SchemaObject = obj(
  { ...envelope, triggerId: RESOURCE_ID, ...triggerBlocks },
  ['missionId', 'type'],
  { closed: true },
);

/** A stored revision as read back: every default written out (TR-1). */
export const storedTriggerSchema: SchemaObject = obj(triggerBlocks, ['missionId', 'type', 'enabled', 'dedupe']);

/** POST /v1/schedules/preview: a schedule block checked and evaluated, nothing stored. */
export const previewBodySchema: SchemaObject = obj(
  {
    schedule: scheduleSchema,
    after: { ...INSTANT, description: 'default: now (database clock)' },
    count: int(1, MAX_PREVIEW_COUNT, { default: DEFAULT_PREVIEW_COUNT }),
  },
  ['schedule'],
);
