import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../adapters/eventstore/event-store.port.js';
import type { TrustedClock } from '../../adapters/clock/trusted-clock.js';
import type { EventStore } from '../../adapters/eventstore/event-store.port.js';
import { type AdmissionFacts, type BudgetConsumed, budgetDecider, type BudgetState, budgetWindowStart, countedExecution } from '../../domain/admission/index.js';
import { missionDecider, type MissionState } from '../../domain/mission/mission.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { budgetStream, missionStream, sourceStream, triggerStream } from '../../domain/shared/ids.js';
import { isRejection } from '../../domain/shared/result.js';
import { isKeyRetired, sourceDecider, type SourceState } from '../../domain/source/source.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import { asDomainEvent, type Loaded, loadAggregates } from '../shared/aggregate.js';
import { CommandRejected } from '../shared/rejected.js';

export type Observed = Extract<OccurrenceState, { status: 'observed' }>;

/** Current state an admission is decided against (AD-2), read once for one or several Occurrences of a Mission. */
export interface AdmissionView {
  now: string;
  windowStart: string;
  mission: MissionState;
  triggers: ReadonlyMap<string, TriggerState>;
  sources: ReadonlyMap<string, SourceState>;
}

/** What one admission appends: its decision, and the budget it counts (none when blocked or already counted). */
export interface AdmissionStep {
  decision: OccurrenceEvent[];
  consumed: BudgetConsumed[];
  executionId: string | null;
}

/** The streams an admission of `occurrences` reads, besides the Mission's budget window: the Mission first. */
function admissionReads(occurrences: readonly Observed['occurrence'][]) {
  const { tenant, missionId } = occurrences[0]!;
  const triggers = [...new Set(occurrences.map((o) => triggerStream(tenant, o.triggerId)))];
  const sources = [...new Set(occurrences.filter(checksKey).map((o) => sourceStream(tenant, o.auth.sourceId!)))];
  return [
    { streamId: missionStream(tenant, missionId), decider: missionDecider },
    ...triggers.map((streamId) => ({ streamId, decider: triggerDecider })),
    ...sources.map((streamId) => ({ streamId, decider: sourceDecider })),
  ];
}

/**
 * Reads, in one round trip where the store can, the budget window and everything admitting
 * `occurrences` (one Mission's) depends on, on the trusted database clock.
 */
export async function loadAdmissionView(store: EventStore, clock: TrustedClock, occurrences: readonly Observed['occurrence'][]) {
  const { tenant, missionId } = occurrences[0]!;
  const now = (await clock.now()).toISOString();
  const windowStart = budgetWindowStart(now);
  const budgetStreamId = budgetStream(tenant, missionId, windowStart);
  const reads = admissionReads(occurrences);
  const [budget, mission, ...rest] = await loadAggregates(store, [{ streamId: budgetStreamId, decider: budgetDecider }, ...reads]);
  // Trigger and source streams have distinct prefixes, so one map serves both lookups.
  const byStream = new Map(reads.slice(1).map((r, i) => [r.streamId, rest[i]!.state]));
  const view: AdmissionView = {
    now,
    windowStart,
    mission: mission!.state as MissionState,
    triggers: byStream as AdmissionView['triggers'],
    sources: byStream as AdmissionView['sources'],
  };
  return { view, budgetStreamId, budget: budget as Loaded<BudgetState> };
}

export const checksKey = (o: Observed['occurrence']): boolean => o.auth.state === 'verified' && !!o.auth.sourceId && !!o.auth.keyId;

/**
 * Decides one observed Occurrence against the view and the budget as it stands, and counts it: an
 * admission the budget refuses (a racing admitter took the last unit) is decided again as exhausted.
 */
export function admissionStep(state: Observed, view: AdmissionView, budget: BudgetState): AdmissionStep {
  const { occurrence } = state;
  const { tenant, missionId, occurrenceId, auth } = occurrence;
  const counted = countedExecution(budget, occurrenceId);
  const facts: AdmissionFacts = {
    trigger: view.triggers.get(triggerStream(tenant, occurrence.triggerId))!,
    mission: view.mission,
    budget: { windowStart: view.windowStart, consumed: budget.consumed, alreadyCountedThisOccurrence: counted !== null },
    // Execution lifecycle (claim/complete, EX-2) is not built yet: nothing is counted as running.
    activeExecutions: 0,
    // AD-2/WH-3: the key that authenticated the delivery must still be current at decision time.
    keyRevoked: checksKey(occurrence) ? isKeyRetired(view.sources.get(sourceStream(tenant, auth.sourceId!))!, auth.keyId!) : false,
    triggerRunning: false,
  };
  const executionId = counted ?? randomUUID();
  const decision = decide(state, executionId, view.now, facts);
  const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
  if (!admitted) return { decision, consumed: [], executionId: null };
  if (counted !== null) return { decision, consumed: [], executionId };
  const limit = admitted.data.request.limits.maxExecutionsPerHour;
  const consumed = budgetDecider.decide({ type: 'ConsumeBudget', tenant, missionId, windowStart: view.windowStart, occurrenceId, executionId, limit, at: view.now }, budget);
  if (!isRejection(consumed)) return { decision, consumed, executionId };
  if (consumed.code !== 'budget_exhausted') throw new CommandRejected(consumed);
  const exhausted = { ...facts, budget: { windowStart: view.windowStart, consumed: Number.MAX_SAFE_INTEGER, alreadyCountedThisOccurrence: false } };
  return { decision: decide(state, executionId, view.now, exhausted), consumed: [], executionId: null };
}

function decide(state: Observed, executionId: string, now: string, facts: AdmissionFacts): OccurrenceEvent[] {
  const events = occurrenceDecider.decide({ type: 'AdmitOccurrence', occurrenceId: state.occurrence.occurrenceId, executionId, now, facts }, state);
  if (isRejection(events)) throw new CommandRejected(events);
  return events.map((e) => asDomainEvent<OccurrenceEvent>({ type: e.type, data: e.data } as never));
}

/** The stream's state from the observation a caller already read (its first event). */
export function fromObservation(observed: RecordedEvent): Loaded<OccurrenceState> {
  return { state: occurrenceDecider.evolve(occurrenceDecider.initialState, asDomainEvent<OccurrenceEvent>(observed)), revision: observed.revision, position: observed.position };
}

export const admissionMetadata = (tenant: string, occurrenceId: string) => ({ tenant, actor: 'reveille:admission', causationId: occurrenceId, correlationId: occurrenceId });
