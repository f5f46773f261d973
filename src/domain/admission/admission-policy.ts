import { isWithin } from '../shared/classification.js';
import { resolvePointer } from '../shared/json-pointer.js';
import { evaluateGuard, type GuardClause } from '../guard/index.js';
import type { BaselineState } from '../prefilter/baseline.js';
import { runPrefilters } from '../prefilter/registry.js';
import type { MissionState } from '../mission/mission.js';
import type { DeliveryPolicy } from '../execution/delivery-policy.js';
import type { ObservedOccurrence, SlotTakenAt } from '../occurrence/occurrence-events.js';
import type { TriggerState } from '../trigger/trigger.js';
import { causalBlock } from '../causality/causal-check.js';
import { effectiveAuthority, resourcesOutside } from './effective-authority.js';
import { authorityStanding } from './standing.js';
import type { ReasonCode } from './reasons.js';

/** AD-2: current state looked up by the handler right before deciding; the policy never queries. */
export interface AdmissionFacts {
  trigger: TriggerState;
  /** Current state of the Mission the occurrence was bound to at observation. */
  mission: MissionState;
  budget: { windowStart: string; consumed: number; alreadyCountedThisOccurrence: boolean };
  activeExecutions: number;
  keyRevoked: boolean;
  /** A previous execution of this Trigger is not terminal (BA-3 `overlap: skip`). */
  triggerRunning: boolean;
  /** Which one, for the evidence of `overlap_skip`. */
  runningExecutionId?: string | null;
  /**
   * AD-4 `unchanged@1`: the baseline of the Occurrence's resource as read with this decision, by resource key
   * (`null`: none admitted yet). Absent or without the key: not read, so the filter is inconclusive.
   */
  baselines?: ReadonlyMap<string, BaselineState>;
}

export type AdmissionVerdict =
  | {
      admitted: true;
      lane: string;
      limits: { maxConcurrent: number; maxExecutionsPerHour: number };
      slotTakenAt: SlotTakenAt;
      /** EX-4/EX-5: the admitting revision's policy, copied so a later revision never changes admitted work. */
      delivery: DeliveryPolicy;
      /** BA-3: present only when the Trigger skips overlaps, so the execution releases its marker when terminal. */
      overlap?: 'skip';
      /** AD-4: what each prefilter found when all passed (a first sighting shows `baseline: null`). */
      prefilters?: Record<string, unknown>[];
    }
  | {
      admitted: false;
      /** BA-2/AD-4: `suppressed` when the Occurrence was not wanted (guard false, prefilter), else `blocked`. */
      outcome: 'blocked' | 'suppressed';
      reason: ReasonCode;
      evidence: Record<string, unknown>;
    };

/**
 * `decision`: the whole policy. `member` (DD-5): only what the Occurrence is on its own (authority, trust, key,
 * scope, classification, causality, guard, the prefilters that need no baseline, lane key), so one that fails
 * any of it is decided alone at once and never joins a coalescing group, where as the last member it would
 * decide every earlier one. What depends on the moment (standing again, key, baseline, overlap, budget,
 * concurrency) is decided when the group closes, for its last member, by the whole policy.
 */
export type AdmissionPhase = 'decision' | 'member';

type Occurrence = Pick<
  ObservedOccurrence,
  | 'occurrenceId'
  | 'tenant'
  | 'triggerId'
  | 'triggerRevision'
  | 'missionId'
  | 'auth'
  | 'resourceRefs'
  | 'classification'
  | 'causal'
  | 'input'
  | 'observedAt'
  | 'scheduledAt'
>;

const block = (reason: ReasonCode, evidence: Record<string, unknown>): AdmissionVerdict => ({
  admitted: false,
  outcome: 'blocked',
  reason,
  evidence,
});

const suppress = (reason: ReasonCode, evidence: Record<string, unknown>): AdmissionVerdict => ({
  admitted: false,
  outcome: 'suppressed',
  reason,
  evidence,
});

/**
 * AD-2 re-check against current state, first failing check wins: Trigger, revision, Mission (the authority
 * standing, shared with EX-4 recovery), trust, key, scope, classification, causality, guard (BA-2), prefilters
 * (AD-4), lane key, overlap, budget, concurrency (opt-in `block` only). Guard and prefilters run before every
 * counter, so an unwanted Occurrence never spends budget, takes a slot or wakes a consumer.
 */
export function admissionPolicy(
  occurrence: Occurrence,
  facts: AdmissionFacts,
  phase: AdmissionPhase = 'decision',
): AdmissionVerdict {
  const standing = authorityStanding(occurrence, facts.trigger, facts.mission);
  if (!standing.stands) return block(standing.reason, standing.evidence);
  const { trigger, mission } = standing;
  const definition = trigger.definition;

  const authority = effectiveAuthority(definition, mission.grants);
  if (occurrence.auth.state === 'unverified' && !authority.acceptLowerTrust) {
    return block('lower_trust_not_allowed', {
      authState: 'unverified',
      triggerAcceptsLowerTrust: definition.constraints.acceptLowerTrust,
      missionAcceptsLowerTrust: mission.grants.acceptLowerTrust,
    });
  }
  if (facts.keyRevoked) {
    const { sourceId = null, keyId = null, keyGeneration = null } = occurrence.auth;
    return block('key_revoked', { sourceId, keyId, keyGeneration });
  }
  const outside = resourcesOutside(occurrence.resourceRefs, authority);
  if (outside.length > 0) {
    return block('scope_violation', {
      violation: 'resource_scope',
      resourceRefs: outside,
      triggerScopes: authority.triggerScopes,
      missionScopes: authority.missionScopes,
    });
  }
  if (!isWithin(occurrence.classification, authority.classification)) {
    return block('scope_violation', {
      violation: 'classification',
      classification: occurrence.classification,
      ceiling: authority.classification,
    });
  }

  const causal = causalBlock(occurrence.triggerId, occurrence.causal, authority.maxCausalDepth);
  if (causal) return block(causal.reason, causal.evidence);

  if (definition.guard) {
    const guard = guardVerdict(definition.guard, occurrence.input, trigger.revision);
    if (guard) return guard;
  }
  // AD-4: after the guard, before every counter, so a filtered Occurrence wakes nothing and spends nothing.
  // DD-5: a member is compared with no baseline: its group's last member is, when the group closes.
  const prefilters =
    phase === 'member' ? definition.prefilters.filter((p) => p.id !== 'unchanged') : definition.prefilters;
  const filtered =
    prefilters.length === 0
      ? null
      : runPrefilters(prefilters, {
          occurrenceId: occurrence.occurrenceId,
          input: occurrence.input,
          acceptedAt: occurrence.scheduledAt ?? occurrence.observedAt,
          triggerRevision: trigger.revision,
          baselines: facts.baselines ?? new Map(),
        });
  if (filtered?.outcome === 'terminate') return suppress(filtered.reason, filtered.evidence);
  if (filtered?.outcome === 'inconclusive') return block(filtered.reason, filtered.evidence);

  const lane = laneOf(definition.queueByPointer, occurrence);
  if (lane === null)
    return block('guard_fault', {
      pointer: definition.queueByPointer,
      problem: 'queue key is not a string, number or boolean',
    });
  if (phase === 'member') return memberPasses(lane, authority, definition);
  if (definition.overlap === 'skip' && facts.triggerRunning)
    return block('overlap_skip', {
      triggerId: occurrence.triggerId,
      overlap: 'skip',
      runningExecutionId: facts.runningExecutionId ?? null,
    });
  const { budget } = facts;
  if (budget.consumed >= authority.maxExecutionsPerHour && !budget.alreadyCountedThisOccurrence) {
    return block('budget_exhausted', {
      windowStart: budget.windowStart,
      consumed: budget.consumed,
      limit: authority.maxExecutionsPerHour,
    });
  }
  // AD-2: the limit bounds claimed work; only a Trigger that opted into `block` is refused here for good.
  const slotTakenAt: SlotTakenAt = definition.constraints.onConcurrencyLimit === 'block' ? 'admission' : 'claim';
  if (slotTakenAt === 'admission' && facts.activeExecutions >= authority.maxConcurrent)
    return block('concurrency_limit', { active: facts.activeExecutions, limit: authority.maxConcurrent });
  return {
    admitted: true,
    lane,
    limits: { maxConcurrent: authority.maxConcurrent, maxExecutionsPerHour: authority.maxExecutionsPerHour },
    slotTakenAt,
    delivery: { ...definition.delivery, backoff: { ...definition.delivery.backoff } },
    ...(definition.overlap === 'skip' ? { overlap: 'skip' as const } : {}),
    ...(filtered ? { prefilters: filtered.evidence } : {}),
  };
}

function memberPasses(
  lane: string,
  authority: ReturnType<typeof effectiveAuthority>,
  definition: Extract<TriggerState, { status: 'defined' }>['definition'],
): AdmissionVerdict {
  return {
    admitted: true,
    lane,
    limits: { maxConcurrent: authority.maxConcurrent, maxExecutionsPerHour: authority.maxExecutionsPerHour },
    slotTakenAt: definition.constraints.onConcurrencyLimit === 'block' ? 'admission' : 'claim',
    delivery: definition.delivery,
  };
}

/** BA-2: false suppresses with `guard_false`, a fault blocks with `guard_fault`; evidence names the deciding clause. */
function guardVerdict(guard: GuardClause, input: unknown, triggerRevision: number): AdmissionVerdict | null {
  const outcome = evaluateGuard(guard, input);
  if (outcome.result === 'true') return null;
  const { clause, pointer, test } = outcome.decidedBy;
  const decided = { triggerRevision, clause: `/guard${clause}`, ...(pointer ? { pointer, test } : {}) };
  if (outcome.result === 'false') return suppress('guard_false', decided);
  const { fault, at, found } = outcome;
  return block('guard_fault', { ...decided, fault, ...(at !== undefined ? { at } : {}), ...(found ? { found } : {}) });
}

/** AD-5: lanes named so serialize their executions; a Trigger's fallback lane (`trigger:<id>`) does not. */
export const RESOURCE_LANE_PREFIX = 'resource:';

/**
 * AD-5 resource lane: `resource:<value>` of `queueByPointer` in the input, else `trigger:<id>`.
 * The prefix keeps a payload value from naming another Trigger's lane; a non-scalar key is a fault.
 */
function laneOf(queueByPointer: string | null, occurrence: Occurrence): string | null {
  const fallback = `trigger:${occurrence.triggerId}`;
  if (queueByPointer === null) return fallback;
  const found = resolvePointer(occurrence.input, queueByPointer);
  if (!found.found || found.value === null) return fallback;
  const value = found.value;
  if (typeof value === 'string') return `${RESOURCE_LANE_PREFIX}${value}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${RESOURCE_LANE_PREFIX}${String(value)}`;
  return null;
}
