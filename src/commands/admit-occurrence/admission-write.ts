import type { EventMetadata, EventStore, RecordedEvent, StreamAppend } from '../../domain/ports/event-store.js';
import {
  type AdmissionStep,
  type AdmissionView,
  admitInOrder,
  type AdmittedInOrder,
  authenticatingKey,
  baselineTarget,
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
import { baselineDecider, type BaselineState } from '../../domain/prefilter/baseline.js';
import type { ObservedOccurrence, OccurrenceEvent } from '../../domain/occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../../domain/occurrence/occurrence.js';
import {
  budgetStream,
  concurrencyStripeStream,
  missionStream,
  occurrenceStream,
  overlapStream,
  sourceStream,
  triggerStream,
} from '../../domain/shared/ids.js';
import { sourceDecider, type SourceState } from '../../domain/source/source.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import {
  asDomainEvent,
  type Loaded,
  loadAggregate,
  loadAggregates,
  loadLatest,
  rememberAppended,
  toNewEvent,
} from '../shared/aggregate.js';
import type { TrustedClock } from '../shared/trusted-clock.js';
import { appendOf, type Write } from '../shared/write-kernel.js';
import { decisionMade, type DecisionMade, type TaggedAppend } from './decision-notifier.js';
import { type LoadedMissionSlots, loadMissionSlots } from '../shared/mission-slots.js';
import { batchAppends, type BatchReads, readBatches } from './batch-reads.js';
import { coalesceAppends, type CoalescingReads, loadHeldSources, readCoalescing } from './coalescing-reads.js';

export interface ToAdmit {
  streamId: string;
  expected: number;
  state: ObservedState;
}

export interface Admitted {
  steps: AdmissionStep[];
  positions: readonly number[];
  /** Each decision as appended: the items decided now and the members of the batches closed (BA-1). */
  decisions: DecisionMade[];
}

/**
 * AD-1, AD-2, AD-5: the counters are appended first, each at the revision it was read, so racing
 * admitters of one Mission serialize; then the decisions, all in one all-or-nothing write. Each group
 * is one Mission's Occurrences in acceptance order; several groups share the read and the write, so
 * they must name disjoint Triggers (the caller groups by Mission and checks).
 */
export async function admissionWrite(
  store: EventStore,
  clock: TrustedClock,
  groups: readonly (readonly ToAdmit[])[],
): Promise<Write<Admitted>> {
  const reads = await readAdmissions(
    store,
    clock,
    groups.map((items) => items.map((i) => i.state)),
  );
  const decided = groups.map((items, g) => {
    const read = reads[g]!;
    const admitted = admitInOrder(
      items.map((i) => i.state),
      read.view,
      countersOf(read),
    );
    const tenant = items[0]!.state.occurrence.tenant;
    return { read, admitted, appends: admissionAppends(read, items, admitted, tenant) };
  });
  return decidedWrite(store, decided);
}

interface Decided {
  read: AdmissionRead;
  admitted: AdmittedInOrder;
  appends: TaggedAppend[];
}

/** Every group's appends in one write; its answer remembers the counters and names each decision made. */
export function decidedWrite(store: EventStore, decided: readonly Decided[]): Write<Admitted> {
  return {
    appends: decided.flatMap((d) => d.appends.map((a) => a.append)),
    answer: (positions) => {
      const steps: AdmissionStep[] = [];
      const decisions: DecisionMade[] = [];
      let at = 0;
      for (const { read, admitted, appends } of decided) {
        const own = positions.slice(at, (at += appends.length));
        rememberCounters(
          store,
          read,
          admitted.counters,
          appends.map((a) => a.append),
          own,
        );
        appends.forEach(({ append, decides }, i) => {
          const made = decides && decisionMade(decides.occurrenceId, decides.events, own[i]!);
          if (made) decisions.push(made);
        });
        steps.push(...admitted.steps);
      }
      return { steps, positions, decisions };
    },
  };
}

/** The counters as read, for deciding in acceptance order. */
export function countersOf(read: AdmissionRead): MissionCounters {
  return {
    budget: read.budget.state,
    concurrency: read.slots?.state ?? initialMissionSlots,
    overlap: new Map([...read.overlap].map(([id, loaded]) => [id, loaded.state])),
    baselines: new Map([...read.baselines].map(([id, loaded]) => [id, loaded.state])),
    batches: new Map([...read.batches.partitions].map(([id, loaded]) => [id, loaded.state])),
    batchMembers: read.batches.members,
    coalesce: read.coalescing.groups,
  };
}

/** Every group's Mission, budget window, Triggers and Sources in one round trip. */
export async function readAdmissions(
  store: EventStore,
  clock: Pick<TrustedClock, 'now'>,
  groups: readonly (readonly ObservedState[])[],
): Promise<AdmissionRead[]> {
  const now = (await clock.now()).toISOString();
  const windowStart = budgetWindowStart(now);
  const plans = groups.map((states) => {
    const occurrences = states.map((s) => s.occurrence);
    const { tenant, missionId } = occurrences[0]!;
    return {
      tenant,
      budgetStreamId: budgetStream(tenant, missionId, windowStart),
      missionStreamId: missionStream(tenant, missionId),
      missionId,
      triggerIds: [...new Set(occurrences.map((o) => o.triggerId))],
      occurrences,
      states,
      sourceIds: [...new Set(occurrences.flatMap((o) => authenticatingKey(o)?.sourceId ?? []))],
    };
  });
  // Each stream once, whichever groups name it.
  const wanted = new Map<string, Folding>();
  for (const plan of plans) {
    wanted.set(plan.budgetStreamId, budgetDecider);
    wanted.set(plan.missionStreamId, missionDecider);
    for (const id of plan.triggerIds) wanted.set(triggerStream(plan.tenant, id), triggerDecider);
    for (const id of plan.sourceIds) wanted.set(sourceStream(plan.tenant, id), sourceDecider);
  }
  const streamIds = [...wanted.keys()];
  const loaded = await loadAggregates(
    store,
    streamIds.map((streamId) => ({ streamId, decider: wanted.get(streamId)! })),
  );
  const byStream = new Map(streamIds.map((id, i) => [id, loaded[i]! as Loaded<unknown>]));
  return Promise.all(
    plans.map(async (plan) => {
      const { tenant, missionId, triggerIds, sourceIds } = plan;
      const triggers = triggerIds.map((id) => byStream.get(triggerStream(tenant, id))!.state as TriggerState);
      const byId = new Map(triggerIds.map((id, i) => [id, triggers[i]!]));
      const coalescing = await readCoalescing(
        store,
        now,
        // BA-1: one waiting in its batch is decided by the batch's close, never by a group.
        plan.states
          .filter((s) => !s.batch)
          .map((s) => ({
            occurrence: s.occurrence,
            streamId: occurrenceStream(s.occurrence.dedupeHash),
            heldIn: s.held?.groupStream ?? null,
          })),
        byId,
      );
      // DD-5: a closing group's last member may be one read only now; its decision needs what any other needs.
      const heldOccurrences = [...coalescing.held.values()].flatMap((h) =>
        h.state.status === 'observed' ? [h.state.occurrence] : [],
      );
      const deciding = [...plan.occurrences, ...heldOccurrences];
      // BA-1 with DD-5: a closing group's representative read only now joins its batch, so its partition is read too.
      const representatives = [...coalescing.groups.values()].flatMap((g) => {
        const last = g.members?.[g.members.length - 1];
        const held = last && coalescing.held.get(last.streamId);
        return held?.state.status === 'observed' ? [held.state.occurrence] : [];
      });
      const [overlap, slots, baselines, heldSources, batches] = await Promise.all([
        loadOverlap(store, tenant, triggerIds, triggers),
        takesSlotsAtAdmission(triggers) ? loadMissionSlots(store, tenant, missionId) : undefined,
        loadBaselines(store, deciding, byId),
        loadHeldSources(store, tenant, heldOccurrences, new Set(sourceIds)),
        readBatches(store, [...plan.occurrences, ...representatives], byId),
      ]);
      // WH-3/AD-2: a batch this run may close re-checks each member's key, so their sources are read as well.
      const memberSources = await loadHeldSources(
        store,
        tenant,
        [...batches.members.values()].map((m) => m.occurrence),
        new Set([...sourceIds, ...heldSources.keys()]),
      );
      const view: AdmissionView = {
        now,
        windowStart,
        mission: byStream.get(plan.missionStreamId)!.state as MissionState,
        triggers: byId,
        sources: new Map([
          ...sourceIds.map((id) => [id, byStream.get(sourceStream(tenant, id))!.state as SourceState] as const),
          ...heldSources,
          ...memberSources,
        ]),
        held: coalescing.held,
      };
      return {
        view,
        budgetStreamId: plan.budgetStreamId,
        budget: byStream.get(plan.budgetStreamId)! as Loaded<BudgetState>,
        slotStreamId: (stripe: number) => concurrencyStripeStream(tenant, missionId, stripe),
        slots,
        overlap,
        overlapStreamId: (triggerId: string) => overlapStream(tenant, triggerId),
        baselines,
        batches,
        coalescing,
      };
    }),
  );
}

type Folding = Parameters<typeof loadAggregates>[1][number]['decider'];

/**
 * AD-2: only an opt-in `block` Trigger takes slots at admission (the others at the claim), so only its
 * admissions read the Mission's slot stripes, after the Trigger itself is known.
 */
const takesSlotsAtAdmission = (triggers: readonly TriggerState[]): boolean =>
  triggers.some((t) => t.status !== 'absent' && !t.deleted && t.definition.constraints.onConcurrencyLimit === 'block');

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

/**
 * AD-4: only Occurrences whose Trigger filters `unchanged@1` read a baseline, one stream per resource, after the
 * Trigger is known; every Occurrence of one resource in the batch shares the read (and its later admissions).
 */
async function loadBaselines(
  store: EventStore,
  occurrences: readonly ObservedOccurrence[],
  triggers: ReadonlyMap<string, TriggerState>,
): Promise<Map<string, Loaded<BaselineState>>> {
  const streamIds = [
    ...new Set(
      occurrences.flatMap(
        (o) => baselineTarget(o.tenant, o.triggerId, triggers.get(o.triggerId)!, o.input)?.streamId ?? [],
      ),
    ),
  ];
  const loaded = await Promise.all(streamIds.map((id) => loadLatest(store, id, baselineDecider)));
  return new Map(streamIds.map((id, i) => [id, loaded[i]!]));
}

export interface AdmissionRead {
  view: AdmissionView;
  budgetStreamId: string;
  budget: Loaded<BudgetState>;
  slotStreamId: (stripe: number) => string;
  slots: LoadedMissionSlots | undefined;
  overlap: Map<string, Loaded<OverlapState>>;
  overlapStreamId: (triggerId: string) => string;
  baselines: Map<string, Loaded<BaselineState>>;
  batches: BatchReads;
  coalescing: CoalescingReads;
}

export function admissionAppends(
  read: AdmissionRead,
  items: readonly ToAdmit[],
  admitted: AdmittedInOrder,
  tenant: string,
): TaggedAppend[] {
  const metadata = items.map((i) => admissionMetadata(i.state.occurrence));
  // A merged event has no single cause: it names the batch's tenant and actor only.
  const countersMetadata: EventMetadata = items.length === 1 ? metadata[0]! : { tenant, actor: ADMISSION_ACTOR };
  const list: StreamAppend[] = [];
  if (admitted.budget.length > 0)
    list.push(appendOf(read.budgetStreamId, admitted.budget, countersMetadata, read.budget));
  // One event per stripe taken, each at the revision its stripe was read.
  for (const taken of admitted.slots)
    list.push(
      appendOf(read.slotStreamId(stripeOf(taken)), [taken], countersMetadata, read.slots!.stripes[stripeOf(taken)]!),
    );
  // At the revision read, so a racing admitter of the same Trigger conflicts and decides again (BA-3).
  for (const [triggerId, events] of admitted.overlap)
    list.push(appendOf(read.overlapStreamId(triggerId), events, countersMetadata, read.overlap.get(triggerId)!));
  // At the revision read, so a racing admission of the same resource conflicts and compares again (AD-4).
  for (const [streamId, events] of admitted.baselines)
    list.push(appendOf(streamId, events, countersMetadata, read.baselines.get(streamId)!));
  const tagged: TaggedAppend[] = list.map((append) => ({ append, decides: null }));
  const itemIds = new Set(items.map((i) => i.state.occurrence.occurrenceId));
  tagged.push(
    ...coalesceAppends(read.coalescing, admitted.coalesce, admitted.held, admissionMetadata, countersMetadata),
    ...batchAppends(
      read.batches,
      admitted.batches,
      admitted.memberDecisions,
      itemIds,
      admissionMetadata,
      countersMetadata,
    ),
  );
  items.forEach(({ streamId, expected, state }, i) => {
    const { occurrenceId } = state.occurrence;
    // BA-1: a member joining a batch its own step closed is decided in the same append.
    const events = [...admitted.steps[i]!.decision, ...(admitted.memberDecisions.get(occurrenceId) ?? [])];
    if (events.length === 0) return;
    const append = { streamId, events: events.map((e) => toNewEvent(e, metadata[i]!)), expected };
    tagged.push({ append, decides: { occurrenceId, events } });
  });
  return tagged;
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

const ADMISSION_ACTOR = 'reveille:admission';

const admissionMetadata = ({ tenant, occurrenceId }: ObservedOccurrence): EventMetadata => ({
  tenant,
  actor: ADMISSION_ACTOR,
  causationId: occurrenceId,
  correlationId: occurrenceId,
});
