import type { EventMetadata, EventStore } from '../../domain/ports/event-store.js';
import type { SqlExecutor } from '../../projections/sql-client.js';
import type { ScheduleTrigger } from '../../domain/schedule/materialization.js';
import {
  evolveSchedule,
  initialScheduleState,
  type ScheduleEvent,
  type ScheduleState,
} from '../../domain/schedule/schedule-events.js';
import { dedupeIdentityHash, scheduleIdentity } from '../../domain/dedupe/dedupe-identity.js';
import { firstInstantAfter } from '../../domain/schedule/activation.js';
import { computeInstants } from '../../domain/schedule/instants.js';
import { occurrenceStream, scheduleStream } from '../../domain/shared/ids.js';
import { isRejection, type Rejection } from '../../domain/shared/result.js';
import { scheduleRow, type ScheduleRow, triggerFacts } from '../../projections/schedules/schedules.queries.js';
import { asDomainEvent } from '../../commands/shared/aggregate.js';
import { bindingOf } from './schedule-appends.js';
import { ScheduleConflict, type ScheduleWriter } from './schedule-writer.js';

export type DecideOne = (trigger: ScheduleTrigger, state: ScheduleState) => ScheduleEvent[] | Rejection;

export type DecideOneOutcome =
  | { kind: 'decided'; events: ScheduleEvent[]; position: number; conflicts: number }
  | { kind: 'unchanged'; conflicts: number }
  | { kind: 'rejected'; rejection: Rejection; conflicts: number }
  | { kind: 'missing'; conflicts: number };

const MAX_ATTEMPTS = 10;
const PROBE_PAGE = 64;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Routine fires are recorded by their Occurrences only (see isRoutine), so the recorded boundary may
 * be behind: follow the current epoch's Occurrence streams from it until the first instant without
 * one. At most MAX_ROUTINE_INSTANTS streams, since a ScheduleMaterialized is recorded at least that often.
 */
export async function followRoutineFires(
  store: EventStore,
  row: ScheduleRow,
  state: ScheduleState,
): Promise<ScheduleState> {
  if (state.status === 'absent' || state.epoch !== row.epoch) return state;
  let { boundary, lastFiredAt } = state;
  for (let page = PROBE_PAGE; page === PROBE_PAGE;) {
    const instants = computeInstants(row.schedule, new Date(Date.parse(boundary)), { count: PROBE_PAGE }).map(
      (i) => i.scheduledAt,
    );
    page = 0;
    for (const instant of instants) {
      const stream = occurrenceStream(dedupeIdentityHash(scheduleIdentity(row.tenant, row, state.epoch, instant)));
      if ((await store.readStream(stream, { maxCount: 1 })).length === 0) break;
      boundary = instant;
      lastFiredAt = lastFiredAt !== null && Date.parse(lastFiredAt) > Date.parse(instant) ? lastFiredAt : instant;
      page += 1;
    }
  }
  if (boundary === state.boundary) return state;
  return { ...state, boundary, lastFiredAt, nextDueAt: firstInstantAfter(row.schedule, boundary) };
}

/**
 * One Trigger decided from its stream, the truth: read from the revision the index names (every
 * decision ends with a ScheduleMaterialized snapshot, so that tail holds the whole state), decide,
 * append at the revision read. A conflict means another writer got there first: read again.
 */
export async function decideOne(
  deps: { store: EventStore; sql: SqlExecutor; writer: ScheduleWriter },
  tenant: string,
  triggerId: string,
  now: string,
  decide: DecideOne,
  metadata?: EventMetadata,
): Promise<DecideOneOutcome> {
  for (let conflicts = 0; ;) {
    const row = await scheduleRow(deps.sql, tenant, triggerId);
    if (!row) return { kind: 'missing', conflicts };
    const tail = await deps.store.readStream(scheduleStream(tenant, triggerId), {
      fromRevision: Math.max(0, row.scheduleRevision),
    });
    const recorded = tail.reduce((s, e) => evolveSchedule(s, asDomainEvent<ScheduleEvent>(e)), initialScheduleState);
    const state = await followRoutineFires(deps.store, row, recorded);
    const decision = decide(triggerFacts(row), state);
    if (isRejection(decision)) return { kind: 'rejected', rejection: decision, conflicts };
    if (decision.length === 0) return { kind: 'unchanged', conflicts };
    const expectedRevision = tail.length > 0 ? tail[tail.length - 1]!.revision : -1;
    try {
      // Always recorded in full: it also brings an index that was behind its streams up to date.
      const index = { side: row.side, schedule: row.schedule };
      const position = await deps.writer.commit([
        { binding: bindingOf(row), events: decision, expectedRevision, now, metadata, routine: false, index },
      ]);
      return { kind: 'decided', events: decision, position, conflicts };
    } catch (error) {
      if (!(error instanceof ScheduleConflict) || conflicts + 1 >= MAX_ATTEMPTS) throw error;
      conflicts += 1;
      await sleep(Math.random() * Math.min(2 ** conflicts, 50));
    }
  }
}
