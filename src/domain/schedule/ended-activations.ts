import { IllegalStateError } from '../shared/errors.js';
import type { TriggerEvent } from '../trigger/trigger.js';
import { type ActivationBasis, basisAfter, type ScheduleActivation } from './activation.js';
import { instantTimes } from './instants.js';
import { parseRfc3339, toUtcIso } from './rfc3339.js';
import type { NormalizedScheduleDefinition } from './schedule-definition.js';
import type { InstantRange, ScheduleSnapshot, ScheduleState, SkipCause } from './schedule-events.js';

/**
 * SC-5: an activation a later Trigger revision ended (the schedule changed, the Trigger was disabled or deleted).
 * Its instants due up to that revision that no scheduler decided meanwhile (none was running) never fire: the
 * revision retired them, as it retires a held range. They are recorded as skipped, with the cause naming what ended
 * the activation, instead of vanishing behind the next activation's boundary.
 */
export interface EndedActivation extends ScheduleActivation {
  schedule: NormalizedScheduleDefinition;
  /** The time of the revision that ended it: its instants up to then were due. */
  endedAt: string;
  cause: Extract<SkipCause, 'superseded' | 'disabled' | 'deleted'>;
}

type LiveBasis = ActivationBasis & { schedule: NormalizedScheduleDefinition; activation: ScheduleActivation };

const live = (b: ActivationBasis | null): b is LiveBasis =>
  b !== null && !b.deleted && b.enabled && b.schedule !== null && b.activation !== null;

const ms = (iso: string): number => {
  const value = parseRfc3339(iso);
  if (value === null) throw new IllegalStateError(`not an RFC 3339 instant: ${iso}`);
  return value;
};

function causeOf(event: TriggerEvent, ended: LiveBasis, next: ActivationBasis | null): EndedActivation['cause'] {
  if (event.type === 'TriggerDeleted') return 'deleted';
  return next?.activation?.epoch === ended.activation.epoch ? 'disabled' : 'superseded';
}

/**
 * The activations the given Trigger events end, oldest first. `since` is the activation a recorded schedule state
 * is at, and the events start with its revision: its epoch cannot be told from that revision alone (enabling again
 * keeps the epoch). Without `since` the events are the Trigger's whole stream. Only revisions up to `through` count:
 * the revision the decision activates, as a stream read may already hold a later one (that ends this activation).
 */
export function endedActivations(
  events: readonly TriggerEvent[],
  since: Pick<ScheduleActivation, 'epoch' | 'activation'> | null,
  through: number,
): EndedActivation[] {
  const from = events.filter((e) => e.data.revision >= (since?.activation ?? 0) && e.data.revision <= through);
  if (since && (from[0]?.type !== 'TriggerRevised' || from[0].data.revision !== since.activation))
    throw new IllegalStateError(`the revision of activation ${since.activation} is not among the events`);
  const ended: EndedActivation[] = [];
  let basis: ActivationBasis | null = null;
  for (const event of from) {
    let next = basisAfter(basis, event);
    if (since && basis === null && next)
      next = { ...next, activation: { epoch: since.epoch, activation: since.activation, activatedAt: event.data.at } };
    if (live(basis) && (!live(next) || next.activation.activation !== basis.activation.activation))
      ended.push({
        ...basis.activation,
        schedule: basis.schedule,
        endedAt: event.data.at,
        cause: causeOf(event, basis, next),
      });
    basis = next;
  }
  return ended;
}

/**
 * Whether deciding a new activation needs the activations ended since the recorded state. Revision 1 is a
 * Trigger's first: with nothing recorded, an activation there has none before it.
 */
export function needsEndedActivations(trigger: { activation: number }, state: ScheduleState): boolean {
  return state.status === 'absent' ? trigger.activation !== 1 : state.activation !== trigger.activation;
}

export interface EndedDecision {
  skipped: Array<InstantRange & { epoch: number; cause: EndedActivation['cause'] }>;
  /** Set when the scan stopped inside an activation: the next decision resumes there. */
  resume: Pick<ScheduleSnapshot, 'epoch' | 'activation' | 'boundary'> | null;
}

/**
 * The undecided instants of each activation ended since `previous`, at most `budget` of them per decision (a long
 * outage is worked through by consecutive decisions, as for a missed run).
 */
export function decideEnded(
  ended: readonly EndedActivation[],
  previous: ScheduleSnapshot | null,
  budget: number,
): EndedDecision {
  const skipped: EndedDecision['skipped'] = [];
  let room = budget;
  for (const a of ended) {
    if (previous && a.activation < previous.activation) continue;
    const after =
      previous && a.epoch === previous.epoch ? Math.max(ms(a.activatedAt), ms(previous.boundary)) : ms(a.activatedAt);
    const until = ms(a.endedAt);
    const due = after < until ? instantTimes(a.schedule, new Date(after), { until: new Date(until), count: room }) : [];
    if (due.length === 0) continue;
    const last = toUtcIso(due[due.length - 1]!);
    skipped.push({ epoch: a.epoch, from: toUtcIso(due[0]!), to: last, count: due.length, cause: a.cause });
    room -= due.length;
    if (room === 0) return { skipped, resume: { epoch: a.epoch, activation: a.activation, boundary: last } };
  }
  return { skipped, resume: null };
}
