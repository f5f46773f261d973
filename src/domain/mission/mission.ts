import type { Decider, DomainEvent } from '../shared/decider.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { reject, type Rejection } from '../shared/result.js';
import {
  isTerminalMissionState,
  validateMissionDefinition,
  type MissionGrants,
  type MissionLifecycle,
} from './mission-grants.js';

export type MissionState =
  | { status: 'absent' }
  | {
      status: 'defined';
      tenant: string;
      missionId: string;
      revision: number;
      state: MissionLifecycle;
      grants: MissionGrants;
      updatedAt: string;
    };

export type DefinedMission = Extract<MissionState, { status: 'defined' }>;

/** Revise a Mission's lifecycle state and grants; `definition` is the raw body without its envelope. */
export interface ReviseMission {
  type: 'ReviseMission';
  tenant: string;
  missionId: string;
  /** 0 = must not exist yet; n = must be at revision n; omitted = unconditional (TR-3 style). */
  expectedRevision?: number;
  definition: unknown;
  reason: string;
  actor: string;
  at: string;
}

/** A new revision of a Mission: the whole state and grants, never a delta. */
export type MissionRevised = DomainEvent<
  'MissionRevised',
  {
    tenant: string;
    missionId: string;
    revision: number;
    state: MissionLifecycle;
    grants: MissionGrants;
    reason: string;
    actor: string;
    at: string;
  }
>;

export type MissionCommand = ReviseMission;
export type MissionEvent = MissionRevised;
export type MissionRejectionCode = 'invalid_definition' | 'revision_conflict' | 'mission_terminal';

export const initialMissionState: MissionState = { status: 'absent' };

export function evolveMission(state: MissionState, event: MissionEvent): MissionState {
  switch (event.type) {
    case 'MissionRevised': {
      const { tenant, missionId, revision, state: lifecycle, grants, at } = event.data;
      return { status: 'defined', tenant, missionId, revision, state: lifecycle, grants, updatedAt: at };
    }
    default: {
      const _: never = event.type;
      return state;
    }
  }
}

/**
 * Terminality is checked before the expected revision, so a stale writer learns the useful fact first.
 * An unchanged revision returns [], even for a terminal Mission: re-applying a definitions file appends no noise.
 */
export function reviseMission(
  command: ReviseMission,
  state: MissionState,
): MissionEvent[] | Rejection<MissionRejectionCode> {
  const definition = validateMissionDefinition(command.definition);
  if (!definition.ok) return reject('invalid_definition', { errors: definition.errors });
  const { state: lifecycle, grants } = definition.value;
  const currentRevision = state.status === 'defined' ? state.revision : 0;
  const revisionMatches = command.expectedRevision === undefined || command.expectedRevision === currentRevision;
  const unchanged =
    state.status === 'defined' && state.state === lifecycle && canonicalJson(state.grants) === canonicalJson(grants);
  if (state.status === 'defined' && isTerminalMissionState(state.state) && !(unchanged && revisionMatches)) {
    return reject('mission_terminal', { detail: `mission is ${state.state}; it cannot be revised`, currentRevision });
  }
  if (!revisionMatches)
    return reject('revision_conflict', { detail: `expected revision ${command.expectedRevision}`, currentRevision });
  if (unchanged) return [];
  const { tenant, missionId, reason, actor, at } = command;
  return [
    {
      type: 'MissionRevised',
      data: { tenant, missionId, revision: currentRevision + 1, state: lifecycle, grants, reason, actor, at },
    },
  ];
}

export function decideMission(
  command: MissionCommand,
  state: MissionState,
): MissionEvent[] | Rejection<MissionRejectionCode> {
  switch (command.type) {
    case 'ReviseMission':
      return reviseMission(command, state);
    default: {
      const _: never = command.type;
      throw new Error('unknown mission command');
    }
  }
}

export const missionDecider: Decider<MissionState, MissionEvent, MissionCommand> = {
  initialState: initialMissionState,
  evolve: evolveMission,
  decide: decideMission,
};
