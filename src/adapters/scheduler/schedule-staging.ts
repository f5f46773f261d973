import { randomUUID } from 'node:crypto';
import { type PreparedContent, prepareBatch } from '../eventstore/sql/sql-batch-append.js';
import { firedInstants, materialize } from '../../domain/schedule/materialization.js';
import { parseRfc3339 } from '../../domain/schedule/rfc3339.js';
import { isRoutine, routineLimitFor } from '../../domain/schedule/routine.js';
import type { ScheduleEvent } from '../../domain/schedule/schedule-events.js';
import type { IndexedEvent } from '../../projections/schedules/schedule-index.js';
import { foldScheduleSide } from '../../projections/schedules/schedule-index.js';
import {
  type ScheduleKey,
  type ScheduleRow,
  stateOf,
  triggerFacts,
} from '../../projections/schedules/schedules.queries.js';
import { sideRow } from '../../projections/schedules/schedules.state.js';
import { bindingOf } from './schedule-appends.js';
import { appendsOf, type ScheduleDecision } from './schedule-appends.js';

/**
 * Pre-staging (BENCHMARKS.md "schedules"): the routine decisions of an instant, worked out before it
 * arrives — the decision itself (as a pass whose clock read exactly the instant would make it), the
 * Occurrence's canonical content, its stream and the due-index row to compare-and-set — so the pass
 * at the instant only claims the rows, fills in its own "now" and commits. Nothing is written ahead:
 * the pass still claims only rows due by its clock and the database's (SC-4, SC-6), and it uses a
 * staged decision only where deciding afresh would give the same one (same row tokens, still on time,
 * no further instant due); any other row is decided from its row as before.
 */

/** Row tokens that pin a decision: any change to the Trigger side or the schedule side moves one of them. */
export interface RowTokens {
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  scheduleRevision: number;
  statePosition: number;
}

/** One staged routine fire; `content` and `side` are texts split where the pass's now / the event's position go. */
export interface StagedFire {
  tokens: RowTokens;
  instant: string;
  /** Last pass time (ms) at which the instant is still on time (instant + grace). */
  latestMs: number;
  /** The next instant (ms): a pass at or after it would fire that one too. */
  nextMs: number;
  streamId: string;
  revision: number;
  content: string[];
  side: string[];
  events: ScheduleEvent[];
}

/** What the writer commits for a staged fire, its "now" filled in. */
export interface ResolvedFire {
  key: ScheduleKey;
  content: PreparedContent;
  /** The due-index row (sideRow JSON) once the Occurrence's position is known. */
  sideRow: (position: number) => string;
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

export const stagingKey = (k: ScheduleKey): string => `${k.tenant}\u0000${k.triggerId}`;

/**
 * The staged fire of `row` at `instant`, or null when its decision there is not a plain routine fire of
 * exactly that instant (activations, misses, periodic records and everything else are decided at the
 * instant as before).
 */
export function stageFire(row: ScheduleRow, instant: string, tzdataVersion: string | null): StagedFire | null {
  if (row.dueAt !== instant || !row.side.state) return null;
  const events = materialize(
    { type: 'MaterializeSchedule', trigger: triggerFacts(row), now: instant, tzdataVersion },
    stateOf(row),
  );
  const fired = firedInstants(events);
  if (fired.length !== 1 || fired[0] !== instant) return null;
  const context = {
    tzdataVersion: row.side.state.tzdataVersion ?? null,
    routineInstants: row.side.routineInstants,
    limit: routineLimitFor(row.triggerId),
  };
  if (!isRoutine(stateOf(row), events, context)) return null;

  const decision: ScheduleDecision = {
    binding: bindingOf(row),
    events,
    expectedRevision: row.scheduleRevision,
    now: MARK,
    routine: true,
    index: { side: row.side, schedule: row.schedule },
  };
  const [occurrence] = appendsOf(decision).occurrences;
  if (!occurrence || occurrence.events.length !== 1) return null;
  const { appended, contents } = prepareBatch([
    { ...occurrence, events: [{ ...occurrence.events[0]!, id: randomUUID() }] },
  ]);
  const marked = contents[0]!;
  // The pass's now goes in twice (observedAt, correlation id); a MARK_TEXT in any other value would show as a third.
  const content = marked.content.split(MARK_TEXT);
  if (content.length !== 3) return null;

  // (the index folds the Occurrence's identity and instant, not its observedAt)
  const observed: IndexedEvent = {
    type: 'OccurrenceObserved',
    position: 0,
    revision: 0,
    data: appended[0]![0]!.data as never,
  };
  const folded = foldScheduleSide(row.side, row.schedule, observed);
  if (folded === row.side || folded.statePosition !== 0 || folded.lastPosition !== 0 || !folded.state) return null;
  const write = { key: { tenant: row.tenant, triggerId: row.triggerId }, expected: row.side, side: folded };
  // Likewise the position goes in twice (state_position, last_position).
  const side = JSON.stringify({ ...sideRow(write), state_position: MARK, last_position: MARK }).split(MARK_NUMBER_TEXT);
  if (side.length !== 3) return null;

  const next = folded.state.nextDueAt;
  return {
    tokens: {
      tenant: row.tenant,
      triggerId: row.triggerId,
      triggerRevision: row.triggerRevision,
      scheduleRevision: row.scheduleRevision,
      statePosition: row.side.statePosition,
    },
    instant,
    latestMs: ms(instant) + row.schedule.missed.graceSeconds * 1000,
    nextMs: next === null ? Number.POSITIVE_INFINITY : ms(next),
    streamId: marked.streamId,
    revision: marked.revision,
    content,
    side,
    events,
  };
}

/** Whether a staged fire is the decision a pass at `nowMs` would make on a row holding `tokens`. */
export function stillHolds(fire: StagedFire, tokens: RowTokens, nowMs: number): boolean {
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
    content: { streamId: fire.streamId, revision: fire.revision, content: fire.content.join(now) },
    sideRow: (position) => fire.side.join(String(position)),
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

  holds(key: ScheduleKey): boolean {
    return this.fires.has(stagingKey(key));
  }

  /** The staged fire for this claimed row if it still holds at `nowMs` (removed either way). */
  take(tokens: RowTokens, nowMs: number): StagedFire | null {
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
