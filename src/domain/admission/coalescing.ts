import {
  addMember,
  closeGroup,
  type CoalesceEvent,
  type CoalesceMember,
  type CoalesceRead,
  coalesceTargetOf,
  evolveCoalesce,
  isDue,
  MAX_COALESCE_MEMBERS,
  openGroup,
  type OpenGroup,
} from '../coalescing/index.js';
import { mergedLink } from '../causality/causal-link.js';
import type { OccurrenceEvent } from '../occurrence/occurrence-events.js';
import { occurrenceDecider, type OccurrenceState } from '../occurrence/occurrence.js';
import { CommandRejected, WrongExpectedRevision } from '../shared/errors.js';
import { occurrenceStream } from '../shared/ids.js';
import { isRejection } from '../shared/result.js';
import { admissionPolicy } from './admission-policy.js';
import { batchStep } from './batch-admission.js';
import {
  admissionStep,
  type AdmissionStep,
  type AdmissionView,
  factsFor,
  type MissionCounters,
  type ObservedState,
} from './admission-step.js';

/**
 * DD-5 within one admission run: what the run appended to each Occurrence stream and coalesce stream so far,
 * and the state each is in after it, so later Occurrences of the run see earlier ones' joins and closes.
 */
export class CoalescingRun {
  private readonly occurrences = new Map<string, { state: OccurrenceState; events: OccurrenceEvent[] }>();
  private readonly groups = new Map<string, { read: CoalesceRead; events: CoalesceEvent[] }>();
  private readonly own: ReadonlySet<string>;

  constructor(
    inputs: readonly ObservedState[],
    private readonly view: AdmissionView,
    groups: ReadonlyMap<string, CoalesceRead> | undefined,
  ) {
    for (const [streamId, loaded] of view.held ?? [])
      this.occurrences.set(streamId, { state: loaded.state, events: [] });
    for (const state of inputs) this.occurrences.set(streamOf(state), { state, events: [] });
    this.own = new Set(inputs.map(streamOf));
    for (const [streamId, read] of groups ?? []) this.groups.set(streamId, { read, events: [] });
  }

  /** Whether the run read this Occurrence stream for a group it may close, not as one of its own Occurrences. */
  readForGroup(streamId: string): boolean {
    return this.occurrences.has(streamId) && !this.own.has(streamId);
  }

  stateOf(streamId: string): OccurrenceState | undefined {
    return this.occurrences.get(streamId)?.state;
  }

  eventsOf(streamId: string): OccurrenceEvent[] {
    return this.occurrences.get(streamId)?.events ?? [];
  }

  /** Decisions of members read from the store (not among the run's Occurrences), by stream. */
  heldDecisions(inputs: readonly ObservedState[]): Map<string, OccurrenceEvent[]> {
    const own = new Set(inputs.map(streamOf));
    return new Map(
      [...this.occurrences]
        .filter(([streamId, o]) => !own.has(streamId) && o.events.length > 0)
        .map(([streamId, o]) => [streamId, o.events]),
    );
  }

  groupAppends(): Map<string, CoalesceEvent[]> {
    return new Map([...this.groups].filter(([, g]) => g.events.length > 0).map(([id, g]) => [id, g.events]));
  }

  groupReads(): Map<string, CoalesceRead> {
    return new Map([...this.groups].map(([id, g]) => [id, g.read]));
  }

  record(streamId: string, events: readonly OccurrenceEvent[]): void {
    const entry = this.occurrences.get(streamId);
    if (!entry) throw new Error(`the run did not read ${streamId}`);
    entry.events.push(...events);
    entry.state = events.reduce(occurrenceDecider.evolve, entry.state);
  }

  group(streamId: string): CoalesceRead {
    const group = this.groups.get(streamId);
    if (!group) throw new Error(`the run did not read coalesce stream ${streamId}`);
    return group.read;
  }

  appendGroup(streamId: string, event: CoalesceEvent): void {
    const group = this.groups.get(streamId)!;
    const { read } = group;
    const member = event.type === 'CoalesceGroupClosed' ? null : event.data.member;
    const members =
      event.type === 'CoalesceGroupOpened'
        ? [member!]
        : event.type === 'CoalesceMemberAdded' && read.members
          ? [...read.members, member!]
          : event.type === 'CoalesceGroupClosed'
            ? []
            : null;
    group.read = { state: evolveCoalesce(read.state, event), revision: read.revision + 1, members };
    group.events.push(event);
  }
}

export const streamOf = (state: ObservedState): string => occurrenceStream(state.occurrence.dedupeHash);

/**
 * One Occurrence of the run, in acceptance order; answers the decisions that moved counters (its own, and the
 * last member of a group it closed). DD-5, where the group's decision is made:
 * - an Occurrence no rule matches, or one any `neverCoalesce` matches, is decided alone at once (`alone`:
 *   admissionStep, or BA-1 a batching Trigger's join of its batch);
 * - one a rule matches is checked as a member first (the policy's `member` phase: what it is on its own);
 *   failing that, it is decided alone at once; passing it, it joins its group (`OccurrenceHeldForCoalescing`);
 * - a group closes when its window has passed by the database clock (the timer presents a member) or by the
 *   acceptance of the next matching Occurrence, or when full: then its last member in acceptance order is
 *   decided by the whole admission policy against current state and counters (AD-2; admitted with `members`),
 *   and every other member is decided `coalesced` into it, all in this run's one write.
 */
export function decideInOrder(
  state: ObservedState,
  view: AdmissionView,
  counters: MissionCounters,
  run: CoalescingRun,
  alone: (state: ObservedState, view: AdmissionView, counters: MissionCounters) => AdmissionStep = admissionStep,
): AdmissionStep[] {
  const streamId = streamOf(state);
  const current = run.stateOf(streamId);
  // Decided already by a close earlier in the run.
  if (current?.status !== 'observed') return [];
  // BA-1: waiting in its batch (DD-5: perhaps as a closed group's representative): the batch's close decides it.
  if (current.batch) return [];
  if (current.held) {
    const group = run.group(current.held.groupStream);
    const open = group.state.open;
    if (open?.groupId !== current.held.groupId) throw racedBy(current.held.groupStream, group);
    return isDue(open, view.now) ? close(current.held.groupStream, view, counters, run) : [];
  }
  const { occurrence } = current;
  const trigger = view.triggers.get(occurrence.triggerId)!;
  const target =
    trigger.status === 'defined' && !trigger.deleted ? coalesceTargetOf(trigger.definition.coalesce, occurrence) : null;
  if (target && admissionPolicy(occurrence, factsFor(current, view, counters), 'member').admitted) {
    const steps: AdmissionStep[] = [];
    const before = run.group(target.streamId).state.open;
    if (before && isDue(before, occurrence.observedAt)) steps.push(...close(target.streamId, view, counters, run));
    const group = run.group(target.streamId);
    const member: CoalesceMember = {
      occurrenceId: occurrence.occurrenceId,
      streamId,
      acceptedAt: occurrence.observedAt,
    };
    const { tenant, triggerId, missionId } = occurrence;
    const joined = group.state.open
      ? addMember(tenant, member, view.now, group.state)
      : openGroup(
          { tenant, triggerId, missionId, ...target, member, revision: group.revision, at: view.now },
          group.state,
        );
    run.appendGroup(target.streamId, joined);
    const open = run.group(target.streamId).state.open!;
    const held = occurrenceDecider.decide(
      {
        type: 'HoldForCoalescing',
        occurrenceId: occurrence.occurrenceId,
        groupStream: target.streamId,
        groupId: open.groupId,
        closesAt: open.closesAt,
        at: view.now,
      },
      current,
    );
    run.record(streamId, accepted(held));
    return steps;
  }
  const step = alone(current, view, counters);
  run.record(streamId, step.decision);
  return [step];
}

/** The group's last member decided by the whole policy, the others coalesced into it, the group closed. */
function close(
  groupStream: string,
  view: AdmissionView,
  counters: MissionCounters,
  run: CoalescingRun,
): AdmissionStep[] {
  const group = run.group(groupStream);
  const open = group.state.open!;
  const members = group.members;
  if (!members || members.length !== open.size) throw new Error(`the members of ${groupStream} were not read`);
  const last = members[members.length - 1]!;
  const lastState = run.stateOf(last.streamId);
  // Read after the group stream: a member decided meanwhile means another process closed it; read again.
  if (lastState?.status !== 'observed' || lastState.held?.groupId !== open.groupId) throw racedBy(groupStream, group);
  const ids = members.map((m) => m.occurrenceId);
  // BA-1: on a batching Trigger the representative joins its batch instead of being admitted alone.
  const joinAt =
    full(open) && Date.parse(last.acceptedAt) < Date.parse(open.closesAt) ? last.acceptedAt : open.closesAt;
  // CA-1/CA-3: the representative runs for every member, so it is judged and runs with all their causes.
  const causal = mergedLink(
    members.map((m) => {
      const memberState = run.stateOf(m.streamId);
      if (memberState?.status !== 'observed') throw racedBy(groupStream, group);
      return memberState.occurrence.causal;
    }),
  );
  const standing: ObservedState = { ...lastState, occurrence: { ...lastState.occurrence, causal } };
  const step =
    batchStep(standing, view, counters, { members: ids, joinAt }) ?? admissionStep(standing, view, counters, ids);
  run.record(last.streamId, step.decision);
  for (const member of members.slice(0, -1)) {
    const memberState = run.stateOf(member.streamId);
    if (memberState?.status !== 'observed') throw racedBy(groupStream, group);
    const coalesced = occurrenceDecider.decide(
      {
        type: 'CoalesceOccurrence',
        occurrenceId: member.occurrenceId,
        groupId: open.groupId,
        coalescedInto: last.occurrenceId,
        at: view.now,
      },
      memberState,
    );
    run.record(member.streamId, accepted(coalesced));
  }
  const decision = step.decision.find((e) => e.type !== 'OccurrenceHeldForCoalescing')!;
  const kind =
    decision.type === 'OccurrenceAdmitted'
      ? 'admitted'
      : decision.type === 'OccurrenceBatchJoined'
        ? 'batched'
        : decision.type === 'OccurrenceSuppressed'
          ? 'suppressed'
          : 'blocked';
  run.appendGroup(groupStream, closeGroup(lastState.occurrence.tenant, members, kind, view.now, group.state));
  return [step];
}

/** Closed by filling up rather than by its window (DD-5: at most MAX_COALESCE_MEMBERS). */
const full = (open: OpenGroup): boolean => open.size >= MAX_COALESCE_MEMBERS;

const racedBy = (streamId: string, group: CoalesceRead) =>
  new WrongExpectedRevision(streamId, group.revision, group.revision + 1);

function accepted(events: ReturnType<typeof occurrenceDecider.decide>): OccurrenceEvent[] {
  if (isRejection(events)) throw new CommandRejected(events);
  return events;
}
