import { evolveBudget, type BudgetEvent, type BudgetState, initialBudgetState } from '../admission/budget.js';
import {
  type ConcurrencyEvent,
  type ConcurrencyState,
  evolveConcurrency,
  initialConcurrencyState,
} from '../admission/concurrency.js';
import { evolveOverlap, initialOverlapState, type OverlapEvent, type OverlapState } from '../admission/overlap.js';
import {
  type CoalesceEvent,
  type CoalesceStreamState,
  evolveCoalesce,
  initialCoalesceState,
} from '../coalescing/coalesce-group.js';
import { EXECUTION_EVENT_TYPES, type ExecutionEvent } from '../execution/execution-events.js';
import { type ExecutionState, requestedExecution } from '../execution/execution-state.js';
import { evolveExecution } from '../execution/evolve-execution.js';
import { executionIdFor } from '../execution/execution.js';
import { evolveMission, initialMissionState, type MissionEvent, type MissionState } from '../mission/mission.js';
import {
  type ExecutionRequest,
  OCCURRENCE_DECISION_TYPES,
  type OccurrenceEvent,
} from '../occurrence/occurrence-events.js';
import { batchPartitionFolding } from '../batch/batch.js';
import type { BatchEvent, BatchPartitionState } from '../batch/batch-events.js';
import {
  evolveOccurrence,
  initialOccurrenceState,
  type OccurrenceDecision,
  type OccurrenceState,
} from '../occurrence/occurrence.js';
import type { RecordedEvent } from '../ports/event-store.js';
import { executionStream, missionStream } from '../shared/ids.js';
import { evolveSource, initialSourceState, type SourceEvent, type SourceState } from '../source/source.js';
import { evolveTrigger, initialTriggerState, type TriggerEvent, type TriggerState } from '../trigger/trigger.js';
import { type SubscriptionEvent, subscriptionKey } from '../subscription/subscription-events.js';
import { evolveWaitFor, initialWaitForState, type WaitForState } from '../subscription/wait-for.js';
import type { AuditRule } from './audit-rules.js';

/** The rules a replay can break: the chain's are checked beside it, read models after it. */
export type ReplayRule = Exclude<
  AuditRule,
  'revision_gap' | 'prev_hash_mismatch' | 'hash_mismatch' | 'read_model_mismatch'
>;

type Report = (rule: ReplayRule, detail: string) => void;

/** An admission's request as executions need it; the payload is dropped so a long log fits in memory. */
interface Requested {
  request: ExecutionRequest;
  decidedAt: string;
}

/**
 * A decided Occurrence: all a later event can still break is "one decision", so the folded state (the whole
 * observation) is let go. Kept small because a long log holds one per Occurrence.
 */
interface Decided {
  status: 'decided_once';
  decision: OccurrenceDecision;
}

/** Each stream's folded state, by category; the categories without a decider only keep their chain. */
export interface StreamReplays {
  missions: Map<string, MissionState>;
  occurrences: Map<string, OccurrenceState | Decided>;
  /** By execution id; `started` once its stream began (the execution's state holds the request from then on). */
  requests: Map<string, Requested | 'started'>;
  /** `null`: the stream cannot be replayed (its request was never admitted), reported once. */
  executions: Map<string, ExecutionState | null>;
  folds: Map<string, unknown>;
  /** SU-1: how many events were replayed, so two events' log order can be compared. */
  seen: number;
  /** SU-1: by subscription key, when its registration was replayed. */
  registered: Map<string, number>;
  /** SU-1: by occurrence stream, when its observation was replayed (dropped once decided). */
  observedAt: Map<string, number>;
}

export const newReplays = (): StreamReplays => ({
  missions: new Map(),
  occurrences: new Map(),
  requests: new Map(),
  executions: new Map(),
  folds: new Map(),
  seen: 0,
  registered: new Map(),
  observedAt: new Map(),
});

/** Evolve-only replays: the domain's fold must accept every stored event. */
const FOLDS: Record<string, { initial: unknown; evolve: (state: never, event: never) => unknown }> = {
  trigger: { initial: initialTriggerState, evolve: evolveTrigger as (s: TriggerState, e: TriggerEvent) => unknown },
  source: { initial: initialSourceState, evolve: evolveSource as (s: SourceState, e: SourceEvent) => unknown },
  budget: { initial: initialBudgetState, evolve: evolveBudget as (s: BudgetState, e: BudgetEvent) => unknown },
  overlap: { initial: initialOverlapState, evolve: evolveOverlap as (s: OverlapState, e: OverlapEvent) => unknown },
  batch: {
    initial: batchPartitionFolding.initialState,
    evolve: batchPartitionFolding.evolve as (s: BatchPartitionState, e: BatchEvent) => unknown,
  },
  // DD-5: each event carries the stream's whole state.
  coalesce: {
    initial: initialCoalesceState,
    evolve: evolveCoalesce as (s: CoalesceStreamState, e: CoalesceEvent) => unknown,
  },
  concurrency: {
    initial: initialConcurrencyState,
    evolve: evolveConcurrency as (s: ConcurrencyState, e: ConcurrencyEvent) => unknown,
  },
  waitfor: {
    initial: initialWaitForState,
    evolve: evolveWaitFor as (s: WaitForState, e: SubscriptionEvent) => unknown,
  },
};

const categoryOf = (streamId: string): string => streamId.slice(0, Math.max(streamId.indexOf('-'), 0));

const domainEvent = <E>(event: RecordedEvent): E => ({ type: event.type, data: event.data }) as E;

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** One stored event through its stream's domain fold, reporting what the domain forbids (AU-2). */
export function replayEvent(replays: StreamReplays, event: RecordedEvent, report: Report): void {
  replays.seen += 1;
  try {
    switch (categoryOf(event.streamId)) {
      case 'mission':
        return replayMission(replays, event);
      case 'occurrence':
        return replayOccurrence(replays, event, report);
      case 'execution':
        return replayExecution(replays, event, report);
      default:
        return replayFold(replays, event);
    }
  } catch (error) {
    report('replay_failed', `${event.type}: ${message(error)}`);
  }
}

function replayMission(replays: StreamReplays, event: RecordedEvent): void {
  const state = replays.missions.get(event.streamId) ?? initialMissionState;
  replays.missions.set(event.streamId, evolveMission(state, domainEvent<MissionEvent>(event)));
}

function replayFold(replays: StreamReplays, event: RecordedEvent): void {
  if (event.type === 'SubscriptionRegistered') {
    const { execution, subscriptionId } = event.data as Extract<
      SubscriptionEvent,
      { type: 'SubscriptionRegistered' }
    >['data'];
    replays.registered.set(subscriptionKey(execution.executionId, subscriptionId), replays.seen);
  }
  const fold = FOLDS[categoryOf(event.streamId)];
  if (!fold) return;
  const state = replays.folds.has(event.streamId) ? replays.folds.get(event.streamId) : fold.initial;
  replays.folds.set(event.streamId, fold.evolve(state as never, domainEvent<never>(event)));
}

const DECISION_TYPES: readonly string[] = OCCURRENCE_DECISION_TYPES;

/** One decision per Occurrence (AD-1), one request per admission (EX-1), none for a cancelled Mission. */
function replayOccurrence(replays: StreamReplays, event: RecordedEvent, report: Report): void {
  const state = replays.occurrences.get(event.streamId) ?? initialOccurrenceState;
  const occurrenceEvent = domainEvent<OccurrenceEvent>(event);
  const decision = DECISION_TYPES.includes(occurrenceEvent.type);
  if (state.status === 'decided_once') {
    if (decision) report('second_decision', `${event.type} after the Occurrence was already ${state.decision}`);
    return;
  }
  if (decision && state.status === 'absent')
    report('decision_without_observation', `${event.type} before OccurrenceObserved`);
  if (decision && state.status === 'decided')
    report('second_decision', `${event.type} after the Occurrence was already ${state.decision}`);
  if (occurrenceEvent.type === 'OccurrenceAdmitted' && state.status !== 'decided')
    checkAdmission(replays, occurrenceEvent.data, report);
  // BA-1: a closed batch's request rides on its first member's decision, and names that member.
  if (occurrenceEvent.type === 'OccurrenceBatched' && occurrenceEvent.data.request && state.status !== 'decided') {
    const { request, ...batched } = occurrenceEvent.data;
    checkAdmission(replays, { ...batched, request, firedAt: request.firedAt }, report);
  }
  if (occurrenceEvent.type === 'OccurrenceObserved' && state.status === 'absent')
    replays.observedAt.set(event.streamId, replays.seen);
  if (occurrenceEvent.type === 'OccurrenceSubscribed' && state.status === 'observed')
    checkSubscribed(replays, event.streamId, occurrenceEvent.data, report);
  if (decision) replays.observedAt.delete(event.streamId);
  const next = evolveOccurrence(state, occurrenceEvent);
  if (next.status === 'decided')
    replays.occurrences.set(event.streamId, { status: 'decided_once', decision: next.decision });
  else
    replays.occurrences.set(
      event.streamId,
      next.status === 'absent' ? next : { ...next, occurrence: { ...next.occurrence, input: null } },
    );
}

/** SU-1: delivered only to subscriptions registered before the Occurrence's acceptance, in log order. */
function checkSubscribed(
  replays: StreamReplays,
  streamId: string,
  subscribed: Extract<OccurrenceEvent, { type: 'OccurrenceSubscribed' }>['data'],
  report: Report,
): void {
  const observed = replays.observedAt.get(streamId);
  for (const { executionId, subscriptionId } of subscribed.evidence?.subscriptions ?? []) {
    const registered = replays.registered.get(subscriptionKey(executionId, subscriptionId));
    if (registered === undefined || observed === undefined || registered > observed)
      report(
        'subscribed_out_of_order',
        `subscription ${subscriptionId} of ${executionId} was not registered before the Occurrence was accepted`,
      );
  }
}

function checkAdmission(
  replays: StreamReplays,
  admitted: Extract<OccurrenceEvent, { type: 'OccurrenceAdmitted' }>['data'],
  report: Report,
): void {
  const { occurrenceId, executionId, request, decidedAt } = admitted;
  if (
    request?.executionId !== executionId ||
    request.occurrenceId !== occurrenceId ||
    executionId !== executionIdFor(occurrenceId)
  ) {
    report('request_mismatch', `the admission's request does not name execution ${executionIdFor(occurrenceId)}`);
    return;
  }
  if (replays.requests.has(executionId)) report('duplicate_request', `execution ${executionId} was requested before`);
  else replays.requests.set(executionId, { request: { ...request, input: null }, decidedAt });
  const mission = replays.missions.get(missionStream(request.tenant, request.missionId));
  if (mission?.status === 'defined' && (mission.state === 'cancelled' || mission.state === 'revoked'))
    report(
      'admitted_for_cancelled_mission',
      `Mission ${request.missionId} was ${mission.state} (revision ${mission.revision}) when this admission was decided`,
    );
}

/** No completion after a noncommit settlement (EX-3); claims and completions carry the current fence (EX-2). */
function replayExecution(replays: StreamReplays, event: RecordedEvent, report: Report): void {
  if (!(EXECUTION_EVENT_TYPES as readonly string[]).includes(event.type)) return;
  const executionEvent = domainEvent<ExecutionEvent>(event);
  const known = replays.executions.get(event.streamId);
  if (known === null) return;
  let state = known;
  if (state === undefined) {
    const { executionId } = executionEvent.data;
    const requested = replays.requests.get(executionId);
    if (!requested || requested === 'started' || executionStream(executionId) !== event.streamId) {
      report('execution_without_admission', `no admission requested execution ${executionId} before ${event.type}`);
      replays.executions.set(event.streamId, null);
      return;
    }
    state = requestedExecution(requested.request, requested.decidedAt);
    replays.requests.set(executionId, 'started');
  }
  if (state.status !== 'absent') {
    if (executionEvent.type === 'ExecutionClaimed') {
      const { fence } = executionEvent.data;
      if (state.status !== 'pending') report('claim_not_fenced', `claimed while ${state.status}`);
      else if (fence !== state.fence + 1) report('claim_not_fenced', `fence ${fence} after fence ${state.fence}`);
    }
    if (executionEvent.type === 'ExecutionCompleted') {
      const { fence } = executionEvent.data;
      if (state.status === 'noncommitted')
        report('completion_after_noncommit', `completed after settlement ${state.settlementId} as noncommitted`);
      else if (state.status !== 'claimed') report('completion_not_fenced', `completed while ${state.status}`);
      else if (fence !== state.fence) report('completion_not_fenced', `fence ${fence}, current claim ${state.fence}`);
    }
    if (executionEvent.type === 'OperationRecorded') {
      const { fence, operationId } = executionEvent.data;
      if (state.status !== 'claimed') report('operation_not_fenced', `operation ${operationId} while ${state.status}`);
      else if (fence !== state.fence)
        report('operation_not_fenced', `operation ${operationId} with fence ${fence}, current claim ${state.fence}`);
    }
  }
  replays.executions.set(event.streamId, evolveExecution(state, executionEvent));
}
