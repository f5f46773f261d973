import type { DeliveryPolicy } from '../execution/delivery-policy.js';
import { validateSchedule, type NormalizedScheduleDefinition } from '../schedule/schedule-definition.js';
import { FieldReader, isRecord, type Raw } from '../shared/fields.js';
import type { FieldError, Validation } from '../shared/result.js';
import {
  batchBlock,
  causalityBlock,
  coalesceBlock,
  constraintsBlock,
  defaultDelivery,
  deliveryBlock,
  guardExpression,
  pollBlock,
  prefiltersBlock,
  sourceBlock,
  type BatchPolicy,
  type CoalesceRule,
  type GuardExpression,
  type PollBinding,
  type PrefilterSpec,
  type SourceBinding,
  type TriggerConstraints,
} from './trigger-blocks.js';

export const TRIGGER_TYPES = ['manual', 'schedule', 'webhook', 'poll'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const DEDUPE_STRATEGIES = [
  'delivery-id@1',
  'payload-key@1',
  'manual-key@1',
  'schedule-instant@1',
  'poll-item@1',
] as const;
export type DedupeStrategy = (typeof DEDUPE_STRATEGIES)[number];

/** `delivery-id@1` on a manual, schedule or poll Trigger means the type's own delivery id and is stored as this. */
export const NATIVE_STRATEGY: Readonly<Record<TriggerType, DedupeStrategy>> = {
  manual: 'manual-key@1',
  schedule: 'schedule-instant@1',
  webhook: 'delivery-id@1',
  poll: 'poll-item@1',
};

/** DD-1 / TR-5: how the dedupe identity is formed, how long it holds, and what a revision does to it. */
export interface DedupePolicy {
  strategy: DedupeStrategy;
  keyPointer: string | null;
  subjectPointer: string | null;
  windowSeconds: number;
  onRevision: 'retain' | 'reset';
}

/** Every default written out (TR-1); other types' blocks are not part of the binding, so they are not kept. */
export interface TriggerDefinition {
  missionId: string;
  type: TriggerType;
  enabled: boolean;
  source: SourceBinding | null;
  schedule: NormalizedScheduleDefinition | null;
  poll: PollBinding | null;
  dedupe: DedupePolicy;
  coalesce: CoalesceRule[];
  batch: BatchPolicy | null;
  overlap: 'allow' | 'skip';
  queueByPointer: string | null;
  guard: GuardExpression | null;
  prefilters: PrefilterSpec[];
  causality: { maxDepth: number } | null;
  constraints: TriggerConstraints;
  /** AD-2: admit occurrences bound to an older revision of this Trigger (default false). */
  acceptOlderRevisions: boolean;
  /** EX-4/EX-5: copied into each execution request this revision admits. */
  delivery: DeliveryPolicy;
}

/** As submitted: constraint members not given are inherited from the Mission when deciding. */
export type ValidatedTriggerDefinition = Omit<TriggerDefinition, 'constraints'> & {
  constraints: Partial<TriggerConstraints>;
};

const DEFINITION_KEYS = [
  'missionId',
  'type',
  'enabled',
  'source',
  'schedule',
  'poll',
  'dedupe',
  'coalesce',
  'batch',
  'overlap',
  'queueByPointer',
  'guard',
  'prefilters',
  'causality',
  'constraints',
  'acceptOlderRevisions',
  'delivery',
];
/** Members of the PUT body that are not definition content; tolerated and ignored here. */
const ENVELOPE_KEYS = ['expectedRevision', 'reason', 'triggerId'];
/** DD-4: the dedupe window a definition gets when it declares none. */
export const DEFAULT_WINDOW_SECONDS = 604_800;

/** Validates a PUT /v1/triggers body (422 `invalid_definition`); pointers are relative to the body root. */
export function validateTriggerDefinition(raw: unknown): Validation<ValidatedTriggerDefinition> {
  if (!isRecord(raw))
    return { ok: false, errors: [{ pointer: '', message: 'a trigger definition must be an object' }] };
  const read = new FieldReader();
  read.onlyKnown(raw, '', [...DEFINITION_KEYS, ...ENVELOPE_KEYS]);
  const type = read.oneOf(raw, '', 'type', TRIGGER_TYPES);
  const block = <T>(key: string, forType: TriggerType, check: (value: Raw) => T | undefined): T | null | undefined => {
    if (type !== forType) return null;
    const value = read.object(raw, '', key, true);
    return value ? check(value) : undefined;
  };
  const optional = <T>(key: string, check: (value: Raw) => T | undefined): T | null | undefined => {
    const value = read.object(raw, '', key, false);
    return value ? check(value) : value;
  };
  const definition = {
    missionId: read.string(raw, '', 'missionId'),
    type,
    enabled: read.boolean(raw, '', 'enabled', true),
    source: block('source', 'webhook', (value) => sourceBlock(read, value)),
    schedule: block('schedule', 'schedule', (value) => validateScheduleBlock(value, read.errors)),
    poll: block('poll', 'poll', (value) => pollBlock(read, value)),
    dedupe: type && dedupeBlock(read, raw.dedupe, type),
    coalesce: coalesceBlock(read, raw),
    batch: optional('batch', (value) => batchBlock(read, value)),
    overlap: read.oneOf(raw, '', 'overlap', ['allow', 'skip'] as const, 'allow'),
    queueByPointer: read.pointer(raw, '', 'queueByPointer', false),
    guard: raw.guard == null ? null : guardExpression(read, raw.guard, '/guard'),
    prefilters: prefiltersBlock(read, raw),
    causality: optional('causality', (value) => causalityBlock(read, value)),
    constraints: optional('constraints', (value) => constraintsBlock(read, value)),
    acceptOlderRevisions: read.boolean(raw, '', 'acceptOlderRevisions', false),
    delivery: optional('delivery', (value) => deliveryBlock(read, value)),
  };
  if (read.errors.length > 0) return { ok: false, errors: read.errors };
  return {
    ok: true,
    value: {
      ...definition,
      constraints: definition.constraints ?? {},
      delivery: definition.delivery ?? defaultDelivery(),
    } as ValidatedTriggerDefinition,
  };
}

/** A revision recorded before the `delivery` block existed reads as its defaults, as if written out (TR-1). */
export function withDeliveryDefaults(definition: TriggerDefinition): TriggerDefinition {
  const recorded = definition as Omit<TriggerDefinition, 'delivery'> & { delivery?: DeliveryPolicy };
  return recorded.delivery ? definition : { ...recorded, delivery: defaultDelivery() };
}

/** The schedule validator's pointers are relative to the block, so they are rebased under `/schedule`. */
export function validateScheduleBlock(raw: unknown, errors: FieldError[]): NormalizedScheduleDefinition | undefined {
  const result = validateSchedule(raw);
  if (result.ok) return result.value;
  errors.push(...result.errors.map((e) => ({ pointer: `/schedule${e.pointer}`, message: e.message })));
  return undefined;
}

function dedupeBlock(read: FieldReader, value: unknown, type: TriggerType): DedupePolicy | undefined {
  const at = '/dedupe';
  if (value != null && !isRecord(value)) return read.fail(at, 'dedupe must be an object');
  const raw: Raw = value ?? {};
  read.onlyKnown(raw, at, ['strategy', 'keyPointer', 'subjectPointer', 'windowSeconds', 'onRevision']);
  const allowed: DedupeStrategy[] =
    type === 'webhook' || type === 'poll'
      ? [NATIVE_STRATEGY[type], 'payload-key@1', 'delivery-id@1']
      : [NATIVE_STRATEGY[type], 'delivery-id@1'];
  const given = read.oneOf(raw, at, 'strategy', [...new Set(allowed)], NATIVE_STRATEGY[type]);
  const strategy = given === 'delivery-id@1' ? NATIVE_STRATEGY[type] : given;
  const keyPointer = read.pointer(raw, at, 'keyPointer', strategy === 'payload-key@1');
  if (keyPointer && strategy && strategy !== 'payload-key@1')
    read.fail(`${at}/keyPointer`, 'keyPointer is used only by strategy "payload-key@1"');
  const subjectPointer = read.pointer(raw, at, 'subjectPointer', false);
  if (subjectPointer && (type === 'manual' || type === 'schedule'))
    read.fail(`${at}/subjectPointer`, `a ${type} Trigger has no payload subject`);
  const windowSeconds = read.integer(raw, at, 'windowSeconds', {
    min: 1,
    max: 31_536_000,
    fallback: DEFAULT_WINDOW_SECONDS,
  });
  const onRevision = read.oneOf(raw, at, 'onRevision', ['retain', 'reset'] as const, 'retain');
  if (
    !strategy ||
    keyPointer === undefined ||
    subjectPointer === undefined ||
    windowSeconds === undefined ||
    !onRevision
  )
    return undefined;
  return { strategy, keyPointer, subjectPointer, windowSeconds, onRevision };
}
