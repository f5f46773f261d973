import type { Decider } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';
import { activationBoundary, firstInstantAfter } from './activation.js';
import { decideEnded, type EndedActivation, needsEndedActivations } from './ended-activations.js';
import { computeInstants, instantTimes } from './instants.js';
import { applyMissedPolicy } from './missed-policy.js';
import { parseRfc3339, toUtcIso } from './rfc3339.js';
import type { NormalizedScheduleDefinition } from './schedule-definition.js';
import {
  evolveSchedule,
  initialScheduleState,
  type InstantRange,
  type ScheduleEvent,
  type ScheduleSnapshot,
  type ScheduleState,
  type SkipCause,
} from './schedule-events.js';

/** Instants one decision looks at; a longer outage is worked through by consecutive decisions. */
export const MAX_SCAN = 10_000;
/** Held ranges kept at once; overflow beyond it is recorded as skipped (`held_limit`) to keep the state bounded. */
export const MAX_HELD_RANGES = 50;

/**
 * SC-5: the last moment an instant due at `dueMs` still counts as on time. `graceSeconds` is a count of whole
 * seconds and lateness is counted the same way, so with grace 0 a pass a few ms after the instant (no process
 * reacts in 0 ms) fires it and one a whole second late has missed it; counted in ms, a `skip` schedule with grace 0
 * skipped every instant while the service ran on time.
 */
export const lastOnTimeMs = (dueMs: number, graceSeconds: number): number => dueMs + graceSeconds * 1000 + 999;

/** Looked up by the handler beforehand, so the decision stays pure. */
export interface ScheduleTrigger {
  tenant: string;
  triggerId: string;
  revision: number;
  epoch: number;
  activation: number;
  activatedAt: string;
  enabled: boolean;
  deleted: boolean;
  schedule: NormalizedScheduleDefinition;
  /** The activations ended since the recorded state (SC-5); null where not looked up (see needsEndedActivations). */
  ended: EndedActivation[] | null;
}

/** Decide every instant due by `now` (database clock, SC-6) since the recorded boundary. */
export interface MaterializeSchedule {
  type: 'MaterializeSchedule';
  trigger: ScheduleTrigger;
  now: string;
  /** tz data of the running process, recorded with the decision (SC-7). */
  tzdataVersion: string | null;
}

/** Operator: fire held instants in order, at most `missed.bound` of them. */
export interface ReleaseHeldInstants {
  type: 'ReleaseHeldInstants';
  trigger: ScheduleTrigger;
  now: string;
  actor: string;
  reason: string;
  tzdataVersion: string | null;
}

/** Operator: record every held instant as skipped. */
export interface DismissHeldInstants {
  type: 'DismissHeldInstants';
  trigger: ScheduleTrigger;
  now: string;
  actor: string;
  reason: string;
  tzdataVersion: string | null;
}

export type ScheduleCommand = MaterializeSchedule | ReleaseHeldInstants | DismissHeldInstants;
export type ScheduleRejectionCode = 'nothing_held' | 'trigger_disabled' | 'trigger_deleted';

const ms = (iso: string): number => {
  const value = parseRfc3339(iso);
  if (value === null) throw new IllegalStateError(`not an RFC 3339 instant: ${iso}`);
  return value;
};

/** The instants a ScheduleMaterialized says fired: the handler appends one OccurrenceObserved for each. */
export function firedInstants(events: readonly ScheduleEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'ScheduleMaterialized' ? e.data.fired : []));
}

/**
 * SC-4/SC-5: instants in (boundary, now] are due; one late by more than `graceSeconds` whole seconds goes
 * through the missed policy. A new activation first records the undecided instants of the activations ended
 * since the recorded state, then moves the boundary forward, never back; a repeated tick returns [].
 */
export function materialize(command: MaterializeSchedule, state: ScheduleState): ScheduleEvent[] {
  const { trigger, now } = command;
  if (!trigger.enabled || trigger.deleted) return [];
  const events: ScheduleEvent[] = [];
  const base = { tenant: trigger.tenant, triggerId: trigger.triggerId, at: now };
  const activating = state.status === 'absent' || state.activation !== trigger.activation;
  let snapshot: ScheduleSnapshot;
  if (state.status === 'absent' || activating) {
    const previous = state.status === 'absent' ? null : state;
    if (trigger.ended === null && needsEndedActivations(trigger, state))
      throw new IllegalStateError('a new activation is decided with the activations ended before it');
    const ended = decideEnded(trigger.ended ?? [], previous, MAX_SCAN);
    const epoch = ended.resume?.epoch ?? trigger.epoch;
    let held = previous?.held ?? [];
    if (previous && previous.epoch !== epoch) {
      for (const r of held)
        events.push({
          type: 'MissedOccurrencesSkipped',
          data: { ...base, epoch: previous.epoch, ...r, cause: 'superseded' },
        });
      held = [];
    }
    for (const { epoch: rangeEpoch, cause, ...r } of ended.skipped)
      events.push({ type: 'MissedOccurrencesSkipped', data: { ...base, epoch: rangeEpoch, ...r, cause } });
    if (ended.resume) {
      const lastFiredAt = previous?.lastFiredAt ?? null;
      const resumed = { ...ended.resume, nextDueAt: null, held, missedRun: null, lastFiredAt };
      return [...events, closing(command, resumed, held, [])];
    }
    const boundary = activationBoundary(trigger.activatedAt, previous?.boundary ?? null);
    snapshot = {
      epoch: trigger.epoch,
      activation: trigger.activation,
      boundary,
      nextDueAt: null,
      held,
      missedRun: null,
      lastFiredAt: previous?.lastFiredAt ?? null,
    };
  } else {
    const { status: _status, ...current } = state;
    snapshot = current;
  }

  const nowMs = ms(now);
  const due = instantTimes(trigger.schedule, new Date(ms(snapshot.boundary)), {
    until: new Date(nowMs),
    count: MAX_SCAN,
  });
  if (due.length === 0 && !activating) return [];
  const grace = trigger.schedule.missed.graceSeconds;
  const missed = due.filter((utc) => nowMs > lastOnTimeMs(utc, grace)).map(toUtcIso);
  const onTime = due.slice(missed.length).map(toUtcIso);
  const continues = due.length === MAX_SCAN && onTime.length === 0;
  const outcome = applyMissedPolicy(trigger.schedule.missed, {
    missed,
    alreadyFired: snapshot.missedRun?.fired ?? 0,
    continues,
  });

  const epochBase = { ...base, epoch: trigger.epoch };
  let held = snapshot.held;
  const skip = (r: InstantRange, cause: SkipCause) =>
    events.push({ type: 'MissedOccurrencesSkipped', data: { ...epochBase, ...r, cause } });
  if (outcome.skipped) skip(outcome.skipped.range, outcome.skipped.cause);
  if (outcome.held && held.length >= MAX_HELD_RANGES) skip(outcome.held, 'held_limit');
  else if (outcome.held) {
    events.push({ type: 'CatchUpHeld', data: { ...epochBase, ...outcome.held } });
    held = [...held, outcome.held];
  }
  const fired = [...outcome.fire, ...onTime];
  const boundary = due.length > 0 ? toUtcIso(due[due.length - 1]!) : snapshot.boundary;
  events.push({
    type: 'ScheduleMaterialized',
    data: {
      ...base,
      triggerRevision: trigger.revision,
      epoch: trigger.epoch,
      activation: trigger.activation,
      boundary,
      nextDueAt: firstInstantAfter(trigger.schedule, boundary),
      held,
      missedRun: outcome.runFired === null ? null : { fired: outcome.runFired },
      lastFiredAt: fired.length > 0 ? latest(fired[fired.length - 1]!, snapshot.lastFiredAt) : snapshot.lastFiredAt,
      fired,
      tzdataVersion: command.tzdataVersion,
    },
  });
  return events;
}

type OperatorCommand = ReleaseHeldInstants | DismissHeldInstants;

/** Held ranges an operator may decide, or why not: only the current epoch's ranges of a live Trigger. */
function heldFor(
  command: OperatorCommand,
  state: ScheduleState,
): { snapshot: ScheduleSnapshot } | Rejection<ScheduleRejectionCode> {
  const { trigger } = command;
  if (trigger.deleted) return reject('trigger_deleted');
  if (state.status === 'absent' || state.held.length === 0 || state.epoch !== trigger.epoch) {
    return reject('nothing_held', { detail: 'This schedule holds no catch-up instants.' });
  }
  if (!trigger.enabled)
    return reject('trigger_disabled', { detail: 'Enable the Trigger before releasing held instants.' });
  const { status: _status, ...snapshot } = state;
  return { snapshot };
}

function closing(
  command: ScheduleCommand,
  snapshot: ScheduleSnapshot,
  held: InstantRange[],
  fired: string[],
): ScheduleEvent {
  const { trigger, now } = command;
  const lastFiredAt = fired.reduce<string | null>((a, b) => latest(b, a), snapshot.lastFiredAt);
  return {
    type: 'ScheduleMaterialized',
    data: {
      tenant: trigger.tenant,
      triggerId: trigger.triggerId,
      at: now,
      triggerRevision: trigger.revision,
      ...snapshot,
      held,
      lastFiredAt,
      fired,
      tzdataVersion: command.tzdataVersion,
    },
  };
}

/** Oldest held instants first, at most `bound` per release; a partly released range shrinks from its start. */
export function releaseHeld(
  command: ReleaseHeldInstants,
  state: ScheduleState,
): ScheduleEvent[] | Rejection<ScheduleRejectionCode> {
  const found = heldFor(command, state);
  if ('rejected' in found) return found;
  const { trigger, now, actor, reason } = command;
  const base = { tenant: trigger.tenant, triggerId: trigger.triggerId, epoch: trigger.epoch, at: now };
  const events: ScheduleEvent[] = [];
  const held = [...found.snapshot.held];
  const fired: string[] = [];
  let room = trigger.schedule.missed.bound ?? 1;
  while (room > 0 && held.length > 0) {
    const r = held[0]!;
    const instants = computeInstants(trigger.schedule, new Date(ms(r.from) - 1), {
      until: new Date(ms(r.to)),
      count: room + 1,
    }).map((i) => i.scheduledAt);
    const take = instants.slice(0, room);
    if (take.length === 0) {
      // The engine no longer yields instants in this range (tz data changed): record it, never drop it silently.
      events.push({ type: 'MissedOccurrencesSkipped', data: { ...base, ...r, cause: 'superseded' } });
      held.shift();
      continue;
    }
    events.push({
      type: 'CatchUpReleased',
      data: { ...base, from: take[0]!, to: take[take.length - 1]!, count: take.length, actor, reason },
    });
    fired.push(...take);
    room -= take.length;
    const next = instants[take.length];
    if (next !== undefined && r.count > take.length) held[0] = { from: next, to: r.to, count: r.count - take.length };
    else held.shift();
  }
  return [...events, closing(command, found.snapshot, held, fired)];
}

export function dismissHeld(
  command: DismissHeldInstants,
  state: ScheduleState,
): ScheduleEvent[] | Rejection<ScheduleRejectionCode> {
  const found = heldFor(command, state);
  if ('rejected' in found) return found;
  const { trigger, now, actor, reason } = command;
  const skipped: ScheduleEvent[] = found.snapshot.held.map((r) => ({
    type: 'MissedOccurrencesSkipped',
    data: {
      tenant: trigger.tenant,
      triggerId: trigger.triggerId,
      epoch: trigger.epoch,
      at: now,
      ...r,
      cause: 'dismissed',
      actor,
      reason,
    },
  }));
  return [...skipped, closing(command, found.snapshot, [], [])];
}

export function decideSchedule(
  command: ScheduleCommand,
  state: ScheduleState,
): ScheduleEvent[] | Rejection<ScheduleRejectionCode> {
  switch (command.type) {
    case 'MaterializeSchedule':
      return materialize(command, state);
    case 'ReleaseHeldInstants':
      return releaseHeld(command, state);
    case 'DismissHeldInstants':
      return dismissHeld(command, state);
    default: {
      const _: never = command;
      throw new IllegalStateError('unknown schedule command');
    }
  }
}

export const scheduleDecider: Decider<ScheduleState, ScheduleEvent, ScheduleCommand> = {
  initialState: initialScheduleState,
  evolve: evolveSchedule,
  decide: decideSchedule,
};

function latest(a: string, b: string | null): string {
  return b === null || ms(a) > ms(b) ? a : b;
}
