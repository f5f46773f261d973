import { canonicalJson } from '../shared/canonical-json.js';
import type { TriggerEvent } from '../trigger/trigger.js';
import { instantTimes } from './instants.js';
import { parseRfc3339, toUtcIso } from './rfc3339.js';
import type { NormalizedScheduleDefinition } from './schedule-definition.js';

/**
 * `epoch` is the revision that set the schedule block, part of every instant's identity (SC-3): revisions that
 * leave the block alone keep it. `activation` is where the schedule runs again (new epoch or re-enable); its
 * boundary is its own time, so instants while absent or disabled are not "missed" (SC-5).
 */
export interface ScheduleActivation {
  epoch: number;
  activation: number;
  activatedAt: string;
}

export interface ActivationBasis {
  schedule: NormalizedScheduleDefinition | null;
  enabled: boolean;
  deleted: boolean;
  activation: ScheduleActivation | null;
}

export interface RevisionFacts {
  revision: number;
  at: string;
  definition: { type: string; enabled: boolean; schedule: NormalizedScheduleDefinition | null };
}

/** The activation after a TriggerRevised; null when the revision is not a schedule Trigger. */
export function nextActivation(previous: ActivationBasis | null, revised: RevisionFacts): ScheduleActivation | null {
  const { schedule, enabled } = revised.definition;
  if (revised.definition.type !== 'schedule' || schedule === null) return null;
  const fresh = { epoch: revised.revision, activation: revised.revision, activatedAt: revised.at };
  if (!previous || !previous.activation || previous.deleted || previous.schedule === null) return fresh;
  if (canonicalJson(previous.schedule) !== canonicalJson(schedule)) return fresh;
  if (enabled && !previous.enabled)
    return { ...previous.activation, activation: revised.revision, activatedAt: revised.at };
  return previous.activation;
}

/** The basis after one Trigger event. */
export function basisAfter(previous: ActivationBasis | null, event: TriggerEvent): ActivationBasis | null {
  if (event.type === 'TriggerDeleted') return previous && { ...previous, deleted: true };
  const { type, schedule, enabled } = event.data.definition;
  return {
    schedule: type === 'schedule' ? schedule : null,
    enabled,
    deleted: false,
    activation: nextActivation(previous, event.data),
  };
}

export function activationOf(
  events: readonly TriggerEvent[],
): (ScheduleActivation & { basis: ActivationBasis }) | null {
  const basis = events.reduce<ActivationBasis | null>(basisAfter, null);
  return basis?.activation ? { ...basis.activation, basis } : null;
}

/** The boundary a new activation starts from: its own time, never before an already decided instant (SC-7). */
export function activationBoundary(activatedAt: string, previousBoundary: string | null): string {
  if (previousBoundary === null) return activatedAt;
  return ms(previousBoundary) > ms(activatedAt) ? previousBoundary : activatedAt;
}

export function firstInstantAfter(schedule: NormalizedScheduleDefinition, boundary: string): string | null {
  const next = instantTimes(schedule, new Date(ms(boundary)), { count: 1 })[0];
  return next === undefined ? null : toUtcIso(next);
}

function ms(iso: string): number {
  const value = parseRfc3339(iso);
  if (value === null) throw new RangeError(`not an RFC 3339 instant: ${iso}`);
  return value;
}
