import type { Decider, DomainEvent } from '../shared/decider.js';

/** AD-4: what `unchanged@1` compares with — the digest of the last admitted Occurrence of a Trigger's resource. */
export interface ResourceBaseline {
  digest: string;
  occurrenceId: string;
  triggerRevision: number;
}

/** null: no Occurrence of this resource was admitted yet (a first sighting passes, never `unchanged`). */
export type BaselineState = ResourceBaseline | null;

/**
 * Appended with the admission it records, at the revision read, so two admitters of one resource serialize
 * and each decision sees every earlier admission (the event carries the whole state: admission reads the last).
 */
export type ResourceBaselineRecorded = DomainEvent<
  'ResourceBaselineRecorded',
  ResourceBaseline & { tenant: string; triggerId: string; resource: unknown; at: string }
>;
export type BaselineEvent = ResourceBaselineRecorded;

export type BaselineCommand = {
  type: 'RecordBaseline';
  tenant: string;
  triggerId: string;
  resource: unknown;
  at: string;
} & ResourceBaseline;

export const initialBaselineState: BaselineState = null;

export const evolveBaseline = (_state: BaselineState, event: BaselineEvent): BaselineState => {
  const { digest, occurrenceId, triggerRevision } = event.data;
  return { digest, occurrenceId, triggerRevision };
};

/** The same admission recorded again (a retry) changes nothing. */
export function recordBaseline(command: BaselineCommand, state: BaselineState): BaselineEvent[] {
  if (state?.occurrenceId === command.occurrenceId) return [];
  const { type: _type, ...data } = command;
  return [{ type: 'ResourceBaselineRecorded', data }];
}

export const baselineDecider: Decider<BaselineState, BaselineEvent, BaselineCommand> = {
  initialState: initialBaselineState,
  evolve: evolveBaseline,
  decide: recordBaseline,
};
