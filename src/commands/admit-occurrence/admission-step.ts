import type { EventMetadata, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import type { TrustedClock } from '../shared/trusted-clock.js';
import type { EventStore } from '../../domain/ports/event-store.js';
import {
  type AdmissionFacts,
  type BudgetConsumed,
  budgetDecider,
  type BudgetState,
  budgetWindowStart,
  type ConcurrencyEvent,
  concurrencyDecider,
  type ConcurrencyState,
  consumeBudget,
  countedExecution,
  mergeBudgetConsumed,
  mergeSlotsTaken,
} from '../../domain/admission/index.js';
import { executionIdFor } from '../../domain/execution/index.js';
import { missionDecider, type MissionState } from '../../domain/mission/mission.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import type { OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import {
  budgetStream,
  concurrencyStream,
  missionStream,
  sourceStream,
  triggerStream,
} from '../../domain/shared/ids.js';
import { isRejection } from '../../domain/shared/result.js';
import { isKeyRetired, sourceDecider, type SourceState } from '../../domain/source/source.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import {
  appendAll,
  asDomainEvent,
  type Loaded,
  loadAggregates,
  loadLatest,
  rememberAppended,
  toNewEvent,
} from '../shared/aggregate.js';
import { CommandRejected } from '../../domain/shared/errors.js';

export type Observed = Extract<OccurrenceState, { status: 'observed' }>;

/** Current state an admission is decided against (AD-2), read once for one or several Occurrences of a Mission. */
interface AdmissionView {
  now: string;
  windowStart: string;
  mission: MissionState;
  triggers: ReadonlyMap<string, TriggerState>;
  sources: ReadonlyMap<string, SourceState>;
}

/** The Mission's budget window and concurrency slots as an admission (or a batch of them) leaves them. */
interface MissionCounters {
  budget: BudgetState;
  concurrency: ConcurrencyState;
}

/**
 * What one admission appends: its decision (carrying the execution request, EX-1) and, when admitted,
 * the budget unit it counts (none when already counted) and the Mission slot it takes.
 */
export interface AdmissionStep {
  decision: OccurrenceEvent[];
  consumed: BudgetConsumed[];
  slot: ConcurrencyEvent[];
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
async function loadAdmissionView(
  store: EventStore,
  clock: TrustedClock,
  occurrences: readonly Observed['occurrence'][],
) {
  const { tenant, missionId } = occurrences[0]!;
  const now = (await clock.now()).toISOString();
  const windowStart = budgetWindowStart(now);
  const budgetStreamId = budgetStream(tenant, missionId, windowStart);
  const reads = admissionReads(occurrences);
  const concurrencyStreamId = concurrencyStream(tenant, missionId);
  const [[budget, mission, ...rest], concurrency] = await Promise.all([
    loadAggregates(store, [{ streamId: budgetStreamId, decider: budgetDecider }, ...reads]),
    loadLatest(store, concurrencyStreamId, concurrencyDecider),
  ]);
  // Trigger and source streams have distinct prefixes, so one map serves both lookups.
  const byStream = new Map(reads.slice(1).map((r, i) => [r.streamId, rest[i]!.state]));
  const view: AdmissionView = {
    now,
    windowStart,
    mission: mission!.state as MissionState,
    triggers: byStream as AdmissionView['triggers'],
    sources: byStream as AdmissionView['sources'],
  };
  return { view, budgetStreamId, budget: budget as Loaded<BudgetState>, concurrencyStreamId, concurrency };
}

const checksKey = (o: Observed['occurrence']): boolean =>
  o.auth.state === 'verified' && !!o.auth.sourceId && !!o.auth.keyId;

/**
 * Decides one observed Occurrence against the view and the Mission's counters as they stand, and
 * counts it: an admission the budget or the slots refuse (a racing admitter took the last unit) is
 * decided again as exhausted or at the limit.
 */
function admissionStep(state: Observed, view: AdmissionView, counters: MissionCounters): AdmissionStep {
  const { occurrence } = state;
  const { tenant, missionId, occurrenceId, auth } = occurrence;
  const { budget, concurrency } = counters;
  const counted = countedExecution(budget, occurrenceId);
  const facts: AdmissionFacts = {
    trigger: view.triggers.get(triggerStream(tenant, occurrence.triggerId))!,
    mission: view.mission,
    budget: {
      windowStart: view.windowStart,
      consumed: budget.consumed,
      alreadyCountedThisOccurrence: counted !== null,
    },
    activeExecutions: concurrency.running,
    // AD-2/WH-3: the key that authenticated the delivery must still be current at decision time.
    keyRevoked: checksKey(occurrence)
      ? isKeyRetired(view.sources.get(sourceStream(tenant, auth.sourceId!))!, auth.keyId!)
      : false,
    // BA-3 `overlap: skip` needs per-Trigger running executions; not tracked yet.
    triggerRunning: false,
  };
  const executionId = counted ?? executionIdFor(occurrenceId);
  const decision = decide(state, executionId, view.now, facts);
  const admitted = decision[0]?.type === 'OccurrenceAdmitted' ? decision[0] : null;
  if (!admitted) return { decision, consumed: [], slot: [], executionId: null };
  const { limits } = admitted.data.request;
  const consumed =
    counted !== null
      ? []
      : consumeBudget(
          {
            type: 'ConsumeBudget',
            tenant,
            missionId,
            windowStart: view.windowStart,
            occurrenceId,
            executionId,
            limit: limits.maxExecutionsPerHour,
            at: view.now,
          },
          budget,
        );
  if (isRejection(consumed)) {
    if (consumed.code !== 'budget_exhausted') throw new CommandRejected(consumed);
    return blockedAfterAll(state, view, {
      ...facts,
      budget: { ...facts.budget, consumed: Number.MAX_SAFE_INTEGER, alreadyCountedThisOccurrence: false },
    });
  }
  const slot = concurrencyDecider.decide(
    { type: 'TakeSlot', tenant, missionId, executionId, limit: limits.maxConcurrent, at: view.now },
    concurrency,
  );
  if (isRejection(slot)) return blockedAfterAll(state, view, { ...facts, activeExecutions: Number.MAX_SAFE_INTEGER });
  return { decision, consumed, slot, executionId };
}

/** The counters evolved by one step, for the next admission of the same batch. */
function countersAfter(counters: MissionCounters, step: AdmissionStep): MissionCounters {
  return {
    budget: step.consumed.reduce(budgetDecider.evolve, counters.budget),
    concurrency: step.slot.reduce(concurrencyDecider.evolve, counters.concurrency),
  };
}

function blockedAfterAll(state: Observed, view: AdmissionView, facts: AdmissionFacts): AdmissionStep {
  return {
    decision: decide(state, executionIdFor(state.occurrence.occurrenceId), view.now, facts),
    consumed: [],
    slot: [],
    executionId: null,
  };
}

/** The Mission counters' streams as an admission read them. */
type AdmissionRead = Pick<
  Awaited<ReturnType<typeof loadAdmissionView>>,
  'budgetStreamId' | 'budget' | 'concurrencyStreamId' | 'concurrency'
>;

/** One decided Occurrence of an admission batch: its stream, the revision it was decided at, its step. */
interface DecidedStep {
  streamId: string;
  expected: number;
  step: AdmissionStep;
  metadata: EventMetadata;
}

const expectedOf = (loaded: Loaded<unknown>): StreamAppend['expected'] =>
  loaded.revision < 0 ? 'no_stream' : loaded.revision;

/**
 * Everything a batch of admissions appends, all or nothing where the store can: the counters first
 * (each at the revision it was read, so racing admitters of one Mission serialize; a batch's budget
 * units and slots one event each), then the decisions.
 */
function admissionAppends(read: AdmissionRead, steps: readonly DecidedStep[]): StreamAppend[] {
  // A merged event has no single cause: it names the batch's tenant and actor only.
  const batchMetadata =
    steps.length === 1 ? steps[0]!.metadata : { tenant: steps[0]!.metadata.tenant, actor: steps[0]!.metadata.actor };
  const consumed = mergeBudgetConsumed(steps.flatMap(({ step }) => step.consumed)).map((e) =>
    toNewEvent(e, batchMetadata),
  );
  const slots = mergeSlotsTaken(steps.flatMap(({ step }) => step.slot)).map((e) => toNewEvent(e, batchMetadata));
  const appends: StreamAppend[] = [];
  if (consumed.length > 0)
    appends.push({ streamId: read.budgetStreamId, events: consumed, expected: expectedOf(read.budget) });
  if (slots.length > 0)
    appends.push({ streamId: read.concurrencyStreamId, events: slots, expected: expectedOf(read.concurrency) });
  for (const { streamId, expected, step, metadata } of steps)
    appends.push({ streamId, events: step.decision.map((e) => toNewEvent(e, metadata)), expected });
  return appends;
}

/**
 * After the append succeeded, the counters as the batch evolved them are the Mission's newest budget
 * and slot states: remembered, so the next batch reads only what others appended since. (Folding the
 * batch's own events again onto the state read before it would copy the whole window's counted log.)
 */
function rememberCounters(
  store: EventStore,
  read: AdmissionRead,
  counters: MissionCounters,
  appends: readonly StreamAppend[],
  positions: readonly number[],
): void {
  appends.forEach((append, i) => {
    const revision = (loaded: Loaded<unknown>) => loaded.revision + append.events.length;
    if (append.streamId === read.budgetStreamId)
      rememberAppended(store, append.streamId, {
        state: counters.budget,
        revision: revision(read.budget),
        position: positions[i]!,
      });
    if (append.streamId === read.concurrencyStreamId)
      rememberAppended(store, append.streamId, {
        state: counters.concurrency,
        revision: revision(read.concurrency),
        position: positions[i]!,
      });
  });
}

function decide(state: Observed, executionId: string, now: string, facts: AdmissionFacts): OccurrenceEvent[] {
  const events = occurrenceDecider.decide(
    { type: 'AdmitOccurrence', occurrenceId: state.occurrence.occurrenceId, executionId, now, facts },
    state,
  );
  if (isRejection(events)) throw new CommandRejected(events);
  return events.map((e) => asDomainEvent<OccurrenceEvent>({ type: e.type, data: e.data } as never));
}

/** An observed Occurrence to admit, at the revision its stream was read. */
export interface ToAdmit {
  streamId: string;
  expected: number;
  state: Observed;
}

/**
 * Admits one Mission's Occurrences in acceptance order: reads the view once, decides each against
 * the counters as the earlier ones left them, appends everything at once (WrongExpectedRevision when
 * any stream moved) and remembers the counters it appended. Returns each step and the append's positions.
 */
export async function admitInOrder(
  store: EventStore,
  clock: TrustedClock,
  items: readonly ToAdmit[],
): Promise<{ steps: AdmissionStep[]; positions: number[] }> {
  const read = await loadAdmissionView(
    store,
    clock,
    items.map((i) => i.state.occurrence),
  );
  let counters: MissionCounters = { budget: read.budget.state, concurrency: read.concurrency.state };
  const decided: DecidedStep[] = [];
  for (const { streamId, expected, state } of items) {
    const step = admissionStep(state, read.view, counters);
    counters = countersAfter(counters, step);
    decided.push({
      streamId,
      expected,
      step,
      metadata: admissionMetadata(state.occurrence.tenant, state.occurrence.occurrenceId),
    });
  }
  const appends = admissionAppends(read, decided);
  const positions = await appendAll(store, appends);
  rememberCounters(store, read, counters, appends, positions);
  return { steps: decided.map((d) => d.step), positions };
}

/** The stream's state from the observation a caller already read (its first event). */
export function fromObservation(observed: RecordedEvent): Loaded<OccurrenceState> {
  return {
    state: occurrenceDecider.evolve(occurrenceDecider.initialState, asDomainEvent<OccurrenceEvent>(observed)),
    revision: observed.revision,
    position: observed.position,
  };
}

const admissionMetadata = (tenant: string, occurrenceId: string) => ({
  tenant,
  actor: 'reveille:admission',
  causationId: occurrenceId,
  correlationId: occurrenceId,
});
