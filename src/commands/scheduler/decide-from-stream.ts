import type { EventMetadata, EventStore } from '../../domain/ports/event-store.js';
import type { DueSchedules } from '../../domain/ports/due-schedules.js';
import type { ScheduleTrigger } from '../../domain/schedule/materialization.js';
import {
  evolveSchedule,
  initialScheduleState,
  type ScheduleEvent,
  type ScheduleState,
} from '../../domain/schedule/schedule-events.js';
import { ScheduleConflict } from '../../domain/schedule/schedule-decision.js';
import { dedupeIdentityHash, scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { computeInstants } from '../../domain/schedule/instants.js';
import { endedActivations, needsEndedActivations } from '../../domain/schedule/ended-activations.js';
import type { TriggerEvent } from '../../domain/trigger/trigger.js';
import { occurrenceStream, scheduleStream, triggerStream } from '../../domain/shared/ids.js';
import { isRejection, type Rejection } from '../../domain/shared/result.js';
import { asDomainEvent } from '../shared/aggregate.js';
import { retryOnConflict } from '../shared/retry-on-conflict.js';

export type DecideFromState = (trigger: ScheduleTrigger, state: ScheduleState) => ScheduleEvent[] | Rejection;

export type StreamDecisionOutcome =
  | { kind: 'decided'; events: ScheduleEvent[]; position: number; conflicts: number }
  | { kind: 'unchanged'; conflicts: number }
  | { kind: 'rejected'; rejection: Rejection; conflicts: number }
  | { kind: 'missing'; conflicts: number };

const MAX_ATTEMPTS = 10;
const PROBE_PAGE = 64;

/**
 * Routine fires are recorded by their Occurrences only, so the recorded boundary may be behind. At most
 * MAX_ROUTINE_INSTANTS streams: a ScheduleMaterialized is recorded at least that often. A state of an ended
 * activation is followed with that activation's schedule, so its ended range starts after what it fired.
 */
export async function followRoutineFires(
  store: Pick<EventStore, 'readStream'>,
  trigger: ScheduleTrigger,
  state: ScheduleState,
): Promise<ScheduleState> {
  if (state.status === 'absent') return state;
  const schedule =
    state.epoch === trigger.epoch
      ? trigger.schedule
      : trigger.ended?.find((a) => a.activation === state.activation)?.schedule;
  if (!schedule) return state;
  let { boundary, lastFiredAt } = state;
  for (let page = PROBE_PAGE; page === PROBE_PAGE;) {
    const instants = computeInstants(schedule, new Date(Date.parse(boundary)), { count: PROBE_PAGE }).map(
      (i) => i.scheduledAt,
    );
    page = 0;
    for (const instant of instants) {
      const identity = scheduleIdentity(trigger.tenant, trigger, state.epoch, instant);
      if ((await store.readStream(occurrenceStream(dedupeIdentityHash(identity)), { maxCount: 1 })).length === 0) break;
      boundary = instant;
      lastFiredAt = lastFiredAt !== null && Date.parse(lastFiredAt) > Date.parse(instant) ? lastFiredAt : instant;
      page += 1;
    }
  }
  if (boundary === state.boundary) return state;
  return { ...state, boundary, lastFiredAt, nextDueAt: firstInstantAfter(schedule, boundary) };
}

/** SC-5: the activations ended since the recorded state, from the Trigger's stream (its revision n is at n - 1). */
export async function withEndedActivations(
  store: Pick<EventStore, 'readStream'>,
  trigger: ScheduleTrigger,
  state: ScheduleState,
): Promise<ScheduleTrigger> {
  if (!needsEndedActivations(trigger, state)) return trigger;
  const since = state.status === 'absent' ? null : { epoch: state.epoch, activation: state.activation };
  const events = await store.readStream(triggerStream(trigger.tenant, trigger.triggerId), {
    fromRevision: since ? since.activation - 1 : 0,
  });
  return {
    ...trigger,
    ended: endedActivations(
      events.map((e) => asDomainEvent<TriggerEvent>(e)),
      since,
      trigger.revision,
    ),
  };
}

/**
 * The stream is the truth; every decision ends with a ScheduleMaterialized snapshot, so the tail from the
 * revision the due index names holds the whole state. A conflict means another writer got there first.
 */
export async function decideFromStream(
  deps: { store: EventStore; schedules: DueSchedules },
  tenant: string,
  triggerId: string,
  now: string,
  decide: DecideFromState,
  metadata?: EventMetadata,
): Promise<StreamDecisionOutcome> {
  return retryOnConflict(
    async (attempt): Promise<StreamDecisionOutcome> => {
      const conflicts = attempt - 1;
      const due = await deps.schedules.find(tenant, triggerId);
      if (!due) return { kind: 'missing', conflicts };
      const tail = await deps.store.readStream(scheduleStream(tenant, triggerId), {
        fromRevision: Math.max(0, due.scheduleRevision),
      });
      const recorded = tail.reduce((s, e) => evolveSchedule(s, asDomainEvent<ScheduleEvent>(e)), initialScheduleState);
      const trigger = await withEndedActivations(deps.store, due.trigger, recorded);
      const state = await followRoutineFires(deps.store, trigger, recorded);
      const decision = decide(trigger, state);
      if (isRejection(decision)) return { kind: 'rejected', rejection: decision, conflicts };
      if (decision.length === 0) return { kind: 'unchanged', conflicts };
      const expectedRevision = tail.length > 0 ? tail[tail.length - 1]!.revision : -1;
      // Always recorded in full: it also brings an index that was behind its streams up to date.
      const position = await due.commit({
        binding: due.binding,
        events: decision,
        expectedRevision,
        now,
        metadata,
        routine: false,
      });
      return { kind: 'decided', events: decision, position, conflicts };
    },
    { maxAttempts: MAX_ATTEMPTS, isConflict: (error) => error instanceof ScheduleConflict },
  );
}
