import { randomUUID } from 'node:crypto';
import type { PreparedEvent } from '../../domain/ports/event-store.js';
import { eventContent } from '../../domain/shared/event-hash.js';
import { needsEndedActivations } from '../../domain/schedule/ended-activations.js';
import { firedInstants, lastOnTimeMs, materialize } from '../../domain/schedule/materialization.js';
import { parseRfc3339 } from '../../domain/schedule/rfc3339.js';
import { isRoutine, routineLimitFor } from '../../domain/schedule/routine.js';
import type { ScheduleDecision } from '../../domain/schedule/schedule-decision.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';
import { foldDueIndex, type IndexedEvent, type TriggerKey } from '../../projections/scheduler/due-index.js';
import { dueIndexUpdateRow } from '../../projections/scheduler/due-index.writes.js';
import {
  bindingOf,
  type DueRow,
  type DueRowTokens,
  stateOf,
  triggerFacts,
} from '../../projections/scheduler/due-rows.js';
import { appendsOf } from '../../commands/scheduler/schedule-appends.js';

/**
 * Routine decisions worked out before their instant (BENCHMARKS.md "schedules"). Nothing is written ahead: the
 * pass still claims only rows due by the database's clock (SC-4, SC-6), and uses a staged decision only where
 * deciding afresh would give the same one.
 */

/** `content` and `indexRow` are texts split where the pass's now and the Occurrence's position go. */
export interface StagedFire {
  tokens: DueRowTokens;
  instant: string;
  /** instant + grace. */
  latestMs: number;
  /** A pass at or after the next instant would fire that one too. */
  nextMs: number;
  streamId: string;
  revision: number;
  content: string[];
  indexRow: string[];
  events: ScheduleEvent[];
}

export interface ResolvedFire {
  key: TriggerKey;
  event: PreparedEvent;
  indexRow: (position: number) => string;
}

/**
 * Stand-in for values decided at the instant, escaped to the six characters `\u0001`: a real value that spells them
 * out adds to the split count, and that row is simply not staged.
 */
const MARK = '\u0001';
const MARK_TEXT = JSON.stringify(MARK).slice(1, -1);
const MARK_NUMBER_TEXT = JSON.stringify(MARK);

const ms = (iso: string): number => parseRfc3339(iso) ?? Number.NaN;

export const stagingKey = (k: TriggerKey): string => `${k.tenant}\u0000${k.triggerId}`;

/** null unless the decision is a plain routine fire of exactly that instant. */
export function stageFire(row: DueRow, instant: string, tzdataVersion: string | null): StagedFire | null {
  if (row.dueAt !== instant || !row.indexed.state) return null;
  const trigger = triggerFacts(row);
  // a new activation is never routine, and is decided from the Trigger's stream
  if (needsEndedActivations(trigger, stateOf(row))) return null;
  const events = materialize({ type: 'MaterializeSchedule', trigger, now: instant, tzdataVersion }, stateOf(row));
  const fired = firedInstants(events);
  if (fired.length !== 1 || fired[0] !== instant) return null;
  const context = {
    tzdataVersion: row.indexed.state.tzdataVersion ?? null,
    routineInstants: row.indexed.routineInstants,
    limit: routineLimitFor(row.triggerId),
  };
  if (!isRoutine(stateOf(row), events, context)) return null;

  const decision: ScheduleDecision = {
    binding: bindingOf(row),
    events,
    expectedRevision: row.indexed.scheduleRevision,
    now: MARK,
    routine: true,
  };
  const [occurrence] = appendsOf(decision).occurrences;
  if (!occurrence || occurrence.events.length !== 1) return null;
  const event = occurrence.events[0]!;
  const { streamId } = occurrence;
  const marked = eventContent({
    id: randomUUID(),
    streamId,
    revision: 0,
    type: event.type,
    schemaVersion: event.schemaVersion ?? 1,
    data: event.data,
    metadata: event.metadata ?? {},
  });
  // The pass's now goes in twice (observedAt, correlation id); a MARK_TEXT in any other value would show as a third.
  const content = marked.split(MARK_TEXT);
  if (content.length !== 3) return null;

  // The index folds the Occurrence's identity and instant, not its observedAt.
  const observed: IndexedEvent = { type: 'OccurrenceObserved', position: 0, revision: 0, data: event.data as never };
  const folded = foldDueIndex(row.indexed, row.schedule, observed);
  if (folded === row.indexed || folded.statePosition !== 0 || folded.lastPosition !== 0 || !folded.state) return null;
  const update = { key: row, expected: row.indexed, next: folded };
  // Likewise the position goes in twice (state_position, last_position).
  const indexRow = JSON.stringify({ ...dueIndexUpdateRow(update), state_position: MARK, last_position: MARK }).split(
    MARK_NUMBER_TEXT,
  );
  if (indexRow.length !== 3) return null;

  const next = folded.state.nextDueAt;
  return {
    tokens: {
      tenant: row.tenant,
      triggerId: row.triggerId,
      triggerRevision: row.triggerRevision,
      scheduleRevision: row.indexed.scheduleRevision,
      statePosition: row.indexed.statePosition,
    },
    instant,
    // the decision a pass would make afresh: on time up to the same bound (SC-5)
    latestMs: lastOnTimeMs(ms(instant), row.schedule.missed.graceSeconds),
    nextMs: next === null ? Number.POSITIVE_INFINITY : ms(next),
    streamId,
    revision: 0,
    content,
    indexRow,
    events,
  };
}

/** Whether a staged fire is the decision a pass at `nowMs` would make on a row holding `tokens`. */
export function stillHolds(fire: StagedFire, tokens: DueRowTokens, nowMs: number): boolean {
  const t = fire.tokens;
  return (
    t.triggerRevision === tokens.triggerRevision &&
    t.scheduleRevision === tokens.scheduleRevision &&
    t.statePosition === tokens.statePosition &&
    nowMs >= ms(fire.instant) &&
    nowMs <= fire.latestMs &&
    nowMs < fire.nextMs
  );
}

export function resolveFire(fire: StagedFire, now: string): ResolvedFire {
  return {
    key: { tenant: fire.tokens.tenant, triggerId: fire.tokens.triggerId },
    event: { streamId: fire.streamId, revision: fire.revision, content: fire.content.join(now) },
    indexRow: (position) => fire.indexRow.join(String(position)),
  };
}

/** A fire is taken at most once. */
export class StagedFires {
  private readonly fires = new Map<string, StagedFire>();
  private readonly instants = new Set<string>();

  get size(): number {
    return this.fires.size;
  }

  has(instant: string): boolean {
    return this.instants.has(instant);
  }

  add(instant: string, fires: Iterable<StagedFire>): void {
    this.instants.add(instant);
    for (const fire of fires) this.fires.set(stagingKey(fire.tokens), fire);
  }

  holds(key: TriggerKey): boolean {
    return this.fires.has(stagingKey(key));
  }

  /** Removed either way. */
  take(tokens: DueRowTokens, nowMs: number): StagedFire | null {
    const key = stagingKey(tokens);
    const fire = this.fires.get(key);
    if (!fire) return null;
    this.fires.delete(key);
    return stillHolds(fire, tokens, nowMs) ? fire : null;
  }

  prune(nowMs: number): void {
    for (const [key, fire] of this.fires) if (ms(fire.instant) < nowMs - 60_000) this.fires.delete(key);
    for (const instant of this.instants) if (ms(instant) < nowMs - 60_000) this.instants.delete(instant);
  }
}
