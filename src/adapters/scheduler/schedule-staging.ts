import { randomUUID } from 'node:crypto';
import type { PreparedEvent } from '../../domain/ports/event-store.js';
import { eventContent } from '../../domain/shared/event-hash.js';
import { firedInstants, materialize } from '../../domain/schedule/materialization.js';
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
 * Pre-staging (BENCHMARKS.md "schedules"): the routine decisions of an instant, worked out before it
 * arrives — the decision itself (as a pass whose clock read exactly the instant would make it), the
 * Occurrence's canonical content, its stream and the due-index row to compare-and-set — so the pass
 * at the instant only claims the rows, fills in its own "now" and commits. Nothing is written ahead:
 * the pass still claims only rows due by its clock and the database's (SC-4, SC-6), and it uses a
 * staged decision only where deciding afresh would give the same one (same row tokens, still on time,
 * no further instant due); any other row is decided from its row as before.
 */

/**
 * One staged routine fire; `content` (the Occurrence's canonical content) and `indexRow` (the due-index
 * update) are texts split where the pass's now / the Occurrence's position go.
 */
export interface StagedFire {
  tokens: DueRowTokens;
  instant: string;
  /** Last pass time (ms) at which the instant is still on time (instant + grace). */
  latestMs: number;
  /** The next instant (ms): a pass at or after it would fire that one too. */
  nextMs: number;
  streamId: string;
  revision: number;
  content: string[];
  indexRow: string[];
  events: ScheduleEvent[];
}

/** What the writer commits for a staged fire, its "now" filled in. */
export interface ResolvedFire {
  key: TriggerKey;
  event: PreparedEvent;
  /** The due-index update (dueIndexUpdateRow JSON) once the Occurrence's position is known. */
  indexRow: (position: number) => string;
}

/**
 * Stand-in for values decided only at the instant. Canonical JSON and JSON.stringify escape it (it is a
 * control character), so it appears in a text as the six characters `\u0001`; a real value that spells
 * them out adds to the split count, and that row is simply not staged. (The mark sits after `"` or
 * `:` in the texts, which it does not contain, so no other value's text can run into it.)
 */
const MARK = '\u0001';
const MARK_TEXT = JSON.stringify(MARK).slice(1, -1);
const MARK_NUMBER_TEXT = JSON.stringify(MARK);

const ms = (iso: string): number => parseRfc3339(iso) ?? Number.NaN;

export const stagingKey = (k: TriggerKey): string => `${k.tenant}\u0000${k.triggerId}`;

/**
 * The staged fire of `row` at `instant`, or null when its decision there is not a plain routine fire of
 * exactly that instant (activations, misses, periodic records and everything else are decided at the
 * instant as before).
 */
export function stageFire(row: DueRow, instant: string, tzdataVersion: string | null): StagedFire | null {
  if (row.dueAt !== instant || !row.indexed.state) return null;
  const events = materialize(
    { type: 'MaterializeSchedule', trigger: triggerFacts(row), now: instant, tzdataVersion },
    stateOf(row),
  );
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

  // (the index folds the Occurrence's identity and instant, not its observedAt)
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
    latestMs: ms(instant) + row.schedule.missed.graceSeconds * 1000,
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

/** The staged fire with the pass's `now` filled in. */
export function resolveFire(fire: StagedFire, now: string): ResolvedFire {
  return {
    key: { tenant: fire.tokens.tenant, triggerId: fire.tokens.triggerId },
    event: { streamId: fire.streamId, revision: fire.revision, content: fire.content.join(now) },
    indexRow: (position) => fire.indexRow.join(String(position)),
  };
}

/** Staged fires by row, for the instants staged so far; a fire is taken at most once. */
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

  /** The staged fire for this claimed row if it still holds at `nowMs` (removed either way). */
  take(tokens: DueRowTokens, nowMs: number): StagedFire | null {
    const key = stagingKey(tokens);
    const fire = this.fires.get(key);
    if (!fire) return null;
    this.fires.delete(key);
    return stillHolds(fire, tokens, nowMs) ? fire : null;
  }

  /** Forgets fires of instants before `nowMs` that no pass took (their rows moved or went elsewhere). */
  prune(nowMs: number): void {
    for (const [key, fire] of this.fires) if (ms(fire.instant) < nowMs - 60_000) this.fires.delete(key);
    for (const instant of this.instants) if (ms(instant) < nowMs - 60_000) this.instants.delete(instant);
  }
}
