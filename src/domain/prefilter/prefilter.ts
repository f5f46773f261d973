import type { ReasonCode } from '../admission/reasons.js';
import type { FieldReader } from '../shared/fields.js';
import type { BaselineState } from './baseline.js';

/** AD-4: a prefilter as stored in a Trigger revision: its id and version, the rest its parameters. */
export interface PrefilterSpec {
  id: string;
  version: number;
  [parameter: string]: unknown;
}

/** What a prefilter may look at: the Occurrence and the state read with its decision, nothing else. */
export interface PrefilterContext {
  occurrenceId: string;
  input: unknown;
  /** The acceptance time by the database clock; for a schedule, the intended instant (SC-6). */
  acceptedAt: string;
  triggerRevision: number;
  /**
   * `unchanged@1`: the baseline of each resource read for this decision, by resource key (`null`: none admitted
   * yet). A key that was not read is a filter error, never a first sighting.
   */
  baselines: ReadonlyMap<string, BaselineState>;
}

export type PrefilterReason = Extract<ReasonCode, 'unchanged' | 'irrelevant' | 'outside_window'>;

export type PrefilterOutcome =
  | { outcome: 'pass'; evidence: Record<string, unknown> }
  | { outcome: 'terminate'; reason: PrefilterReason; evidence: Record<string, unknown> }
  | { outcome: 'inconclusive'; evidence: Record<string, unknown> };

/** One versioned, deterministic filter: how its parameters are validated and how it decides. */
export interface PrefilterKind {
  id: string;
  version: number;
  /** Parameters besides `id` and `version`; reports into `read` and answers false when invalid. */
  validate(read: FieldReader, spec: Record<string, unknown>, at: string): boolean;
  evaluate(spec: PrefilterSpec, context: PrefilterContext): PrefilterOutcome;
}

export const filterRef = (spec: Pick<PrefilterSpec, 'id' | 'version'>) => ({ filter: spec.id, version: spec.version });
