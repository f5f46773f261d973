import type { EventMetadata, EventStore, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import {
  type AdmissionStep,
  type AdmissionView,
  admitInOrder,
  type AdmittedInOrder,
  authenticatingKey,
  budgetDecider,
  type BudgetState,
  budgetWindowStart,
  initialMissionSlots,
  type MissionCounters,
  type ObservedState,
  overlapDecider,
  type OverlapState,
  stripeOf,
} from '../../domain/admission/index.js';
import { missionDecider, type MissionState } from '../../domain/mission/mission.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import {
  budgetStream,
  concurrencyStripeStream,
  missionStream,
  overlapStream,
  sourceStream,
  triggerStream,
} from '../../domain/shared/ids.js';
import { sourceDecider, type SourceState } from '../../domain/source/source.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import {
  asDomainEvent,
  type Loaded,
  loadAggregates,
  loadLatest,
  rememberAppended,
  toNewEvent,
} from '../shared/aggregate.js';
import type { TrustedClock } from '../shared/trusted-clock.js';
import { appendOf, type Write } from '../shared/write-kernel.js';
import { loadMissionSlots } from '../shared/mission-slots.js';

export interface ToAdmit {
  streamId: string;
  expected: number;
  state: ObservedState;
}

export interface Admitted {
  steps: AdmissionStep[];
  positions: readonly number[];
}

/**
 * AD-1, AD-2, AD-5: the counters are appended first, each at the revision it was read, so racing
 * admitters of one Mission serialize; then the decisions, all in one all-or-nothing write.
 */
export async function admissionWrite(
  store: EventStore,
  clock: TrustedClock,
  items: readonly ToAdmit[],
): Promise<Write<Admitted>> {
  const read = await readAdmission(
    store,
    clock,
    items.map((i) => i.state.occurrence),
  );
  const admitted = admitInOrder(
    items.map((i) => i.state),
    read.view,
    {
      budget: read.budget.state,
      concurrency: read.slots?.state ?? initialMissionSlots,
      overlap: new Map([...read.overlap].map(([id, loaded]) => [id, loaded.state])),
    },
  );
  const appends = admissionAppends(read, items, admitted);
  return {
    appends,
    answer: (positions) => {
      rememberCounters(store, read, admitted.counters, appends, positions);
      return { steps: admitted.steps, positions };
    },
  };
}

async function readAdmission(store: EventStore, clock: TrustedClock, occurrences: readonly ObservedOccurrence[]) {
  const { tenant, missionId } = occurrences[0]!;
  const now = (await clock.now()).toISOString();
  const windowStart = budgetWindowStart(now);
  const budgetStreamId = budgetStream(tenant, missionId, windowStart);
  const triggerIds = [...new Set(occurrences.map((o) => o.triggerId))];
  const sourceIds = [...new Set(occurrences.flatMap((o) => authenticatingKey(o)?.sourceId ?? []))];
  const [[budget, mission, ...rest], overlap, slots] = await loadAggregates(store, [
    { streamId: budgetStreamId, decider: budgetDecider },
    { streamId: missionStream(tenant, missionId), decider: missionDecider },
    ...triggerIds.map((id) => ({ streamId: triggerStream(tenant, id), decider: triggerDecider })),
    ...sourceIds.map((id) => ({ streamId: sourceStream(tenant, id), decider: sourceDecider })),
  ]).then(async (loaded) => {
    const triggers = loaded.slice(2, 2 + triggerIds.length).map((t) => t.state as TriggerState);
    return [
      loaded,
      ...(await Promise.all([
        loadOverlap(store, tenant, triggerIds, triggers),
        takesSlotsAtAdmission(triggers) ? loadMissionSlots(store, tenant, missionId) : undefined,
      ])),
    ] as const;
  });
  const view: AdmissionView = {
    now,
    windowStart,
    mission: mission!.state as MissionState,
    triggers: new Map(triggerIds.map((id, i) => [id, rest[i]!.state as TriggerState])),
    sources: new Map(sourceIds.map((id, i) => [id, rest[triggerIds.length + i]!.state as SourceState])),
  };
  return {
    view,
    budgetStreamId,
    budget: budget as Loaded<BudgetState>,
    slotStreamId: (stripe: number) => concurrencyStripeStream(tenant, missionId, stripe),
    slots,
    overlap,
    overlapStreamId: (triggerId: string) => overlapStream(tenant, triggerId),
  };
}

/**
 * AD-2: only an opt-in `block` Trigger takes slots at admission (the others at the claim), so only its
 * admissions read the Mission's slot stripes, after the Trigger itself is known.
 */
const takesSlotsAtAdmission = (triggers: readonly TriggerState[]): boolean =>
  triggers.some((t) => t.status !== 'absent' && t.definition.constraints.onConcurrencyLimit === 'block');

/**
 * BA-3: only a Trigger whose current definition skips overlaps has a marker to read, so only its
 * admissions pay the extra round trip, after the Trigger itself is known.
 */
async function loadOverlap(
  store: EventStore,
  tenant: string,
  triggerIds: readonly string[],
  triggers: readonly TriggerState[],
): Promise<Map<string, Loaded<OverlapState>>> {
  const skipping = triggerIds.filter((_, i) => {
    const trigger = triggers[i]!;
    return trigger.status !== 'absent' && !trigger.deleted && trigger.enabled && trigger.definition.overlap === 'skip';
  });
  const loaded = await Promise.all(skipping.map((id) => loadLatest(store, overlapStream(tenant, id), overlapDecider)));
  return new Map(skipping.map((id, i) => [id, loaded[i]!]));
}

type AdmissionRead = Awaited<ReturnType<typeof readAdmission>>;

function admissionAppends(read: AdmissionRead, items: readonly ToAdmit[], admitted: AdmittedInOrder): StreamAppend[] {
  const metadata = items.map((i) => admissionMetadata(i.state.occurrence));
  // A merged event has no single cause: it names the batch's tenant and actor only.
  const countersMetadata: EventMetadata =
    items.length === 1 ? metadata[0]! : { tenant: metadata[0]!.tenant, actor: metadata[0]!.actor };
  const appends: StreamAppend[] = [];
  if (admitted.budget.length > 0)
    appends.push(appendOf(read.budgetStreamId, admitted.budget, countersMetadata, read.budget));
  // One event per stripe taken, each at the revision its stripe was read.
  for (const taken of admitted.slots)
    appends.push(
      appendOf(read.slotStreamId(stripeOf(taken)), [taken], countersMetadata, read.slots!.stripes[stripeOf(taken)]!),
    );
  // At the revision read, so a racing admitter of the same Trigger conflicts and decides again (BA-3).
  for (const [triggerId, events] of admitted.overlap)
    appends.push(appendOf(read.overlapStreamId(triggerId), events, countersMetadata, read.overlap.get(triggerId)!));
  items.forEach(({ streamId, expected }, i) =>
    appends.push({ streamId, events: admitted.steps[i]!.decision.map((e) => toNewEvent(e, metadata[i]!)), expected }),
  );
  return appends;
}

/** Folding the batch's own events again onto the state read before it would copy the whole window's counted log. */
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
    const stripe = read.slots?.stripes.findIndex((_, k) => read.slotStreamId(k) === append.streamId) ?? -1;
    if (stripe >= 0)
      rememberAppended(store, append.streamId, {
        state: counters.concurrency[stripe]!,
        revision: revision(read.slots!.stripes[stripe]!),
        position: positions[i]!,
      });
  });
}

export function fromObservation(observed: RecordedEvent): Loaded<OccurrenceState> {
  return {
    state: occurrenceDecider.evolve(occurrenceDecider.initialState, asDomainEvent<OccurrenceEvent>(observed)),
    revision: observed.revision,
    position: observed.position,
  };
}

const admissionMetadata = ({ tenant, occurrenceId }: ObservedOccurrence): EventMetadata => ({
  tenant,
  actor: 'reveille:admission',
  causationId: occurrenceId,
  correlationId: occurrenceId,
});
