import { canonicalJson } from '../shared/canonical-json.js';
import type { Decider, DomainEvent } from '../shared/decider.js';
import { IllegalStateError } from '../shared/errors.js';
import { isRejection, reject, type Rejection } from '../shared/result.js';
import { isTerminalMissionState } from '../mission/mission-grants.js';
import type { DefinedMission, MissionState } from '../mission/mission.js';
import {
  authorityWidening,
  resolveConstraints,
  unsupportedCapabilities,
  type CapabilityRelevant,
} from './trigger-authority.js';
import { validateTriggerDefinition, withDeliveryDefaults, type TriggerDefinition } from './trigger-definition.js';

/** SC-1/SC-7: data versions pinned when a schedule revision is activated. */
export interface TriggerPins {
  tzdataVersion: string;
}

export type TriggerState =
  | { status: 'absent' }
  | {
      status: 'defined';
      tenant: string;
      triggerId: string;
      revision: number;
      definition: TriggerDefinition;
      /** TR-5 dedupe namespace epoch: 1 at creation, +1 on each revision declaring `onRevision: reset`. */
      dedupeEpoch: number;
      /**
       * The revision that created this life of the Trigger: 1, or the first revision after a deletion (api.md: a
       * later PUT at revision 0 creates it again). State kept beside the Trigger (its poll state) names the life it
       * belongs to, so a re-created Trigger never inherits what its deleted life left behind.
       */
      createdRevision: number;
      enabled: boolean;
      deleted: boolean;
      revisedAt: string;
      pins: TriggerPins | null;
    };

export type DefinedTrigger = Extract<TriggerState, { status: 'defined' }>;

interface TriggerCommandBase {
  tenant: string;
  triggerId: string;
  /** 0 = must not exist (absent or deleted); n = must be at n; omitted = unconditional (TR-3). */
  expectedRevision?: number;
  reason: string;
  actor: string;
  at: string;
}

/** Create or revise a Trigger from a raw PUT body; the handler looks up the Mission it names. */
export interface ReviseTrigger extends TriggerCommandBase {
  type: 'ReviseTrigger';
  definition: unknown;
  mission: MissionState;
  /** CP-1: capabilities this deployment claims. */
  capabilities: readonly string[];
  pins: TriggerPins;
  /** Whether the source a webhook Trigger names exists in the tenant (looked up for webhook Triggers only). */
  sourceDefined?: boolean;
}

/** Enable or disable a Trigger: a revision with the same definition except `enabled`. */
export interface SetTriggerEnabled extends TriggerCommandBase {
  type: 'SetTriggerEnabled';
  enabled: boolean;
  /** Current state of the bound Mission; enabling needs a Mission that is not terminal. */
  mission: MissionState;
  /** CP-1: enabling a revision stored before its blocks were refused would run them ignored, so it is refused. */
  capabilities: readonly string[];
}

/** Delete a Trigger: later occurrences bound to it are blocked with `trigger_deleted`. */
export interface DeleteTrigger extends TriggerCommandBase {
  type: 'DeleteTrigger';
}

/** A new revision holding the whole definition, defaults filled and constraints resolved (TR-1). */
export type TriggerRevised = DomainEvent<
  'TriggerRevised',
  {
    tenant: string;
    triggerId: string;
    revision: number;
    definition: TriggerDefinition;
    dedupeEpoch: number;
    reason: string;
    actor: string;
    at: string;
    pins?: TriggerPins;
  }
>;

/** The Trigger was deleted at this revision; a later ReviseTrigger re-creates it. */
export type TriggerDeleted = DomainEvent<
  'TriggerDeleted',
  { tenant: string; triggerId: string; revision: number; reason: string; actor: string; at: string }
>;

export type TriggerCommand = ReviseTrigger | SetTriggerEnabled | DeleteTrigger;
export type TriggerEvent = TriggerRevised | TriggerDeleted;
export type TriggerRejectionCode =
  | 'invalid_definition'
  | 'revision_conflict'
  | 'mission_not_found'
  | 'mission_terminal'
  | 'capability_unsupported'
  | 'authority_widening'
  | 'trigger_not_found'
  | 'trigger_deleted';
type TriggerDecision = TriggerEvent[] | Rejection<TriggerRejectionCode>;

export const initialTriggerState: TriggerState = { status: 'absent' };

export function evolveTrigger(state: TriggerState, event: TriggerEvent): TriggerState {
  switch (event.type) {
    case 'TriggerRevised': {
      const { tenant, triggerId, revision, dedupeEpoch, at, pins } = event.data;
      const definition = withDeliveryDefaults(event.data.definition);
      return {
        status: 'defined',
        tenant,
        triggerId,
        revision,
        definition,
        dedupeEpoch,
        createdRevision: state.status === 'absent' || state.deleted ? revision : state.createdRevision,
        enabled: definition.enabled,
        deleted: false,
        revisedAt: at,
        pins: pins ?? null,
      };
    }
    case 'TriggerDeleted':
      if (state.status === 'absent') return state;
      return { ...state, revision: event.data.revision, deleted: true, revisedAt: event.data.at };
    default: {
      const _: never = event;
      return state;
    }
  }
}

function revisionConflict(command: TriggerCommandBase, state: TriggerState): Rejection<'revision_conflict'> | null {
  const current = state.status === 'defined' ? state.revision : 0;
  const expected = command.expectedRevision;
  if (expected === undefined || expected === current || (expected === 0 && state.status === 'defined' && state.deleted))
    return null;
  return reject('revision_conflict', { detail: `expected revision ${expected}`, currentRevision: current });
}

/** The bound Mission if it exists and is not terminal (paused is fine: admission blocks later). */
function liveMission(
  mission: MissionState,
  tenant: string,
  missionId: string,
): DefinedMission | Rejection<'mission_not_found' | 'mission_terminal'> {
  if (mission.status === 'absent')
    return reject('mission_not_found', {
      errors: [{ pointer: '/missionId', message: `mission "${missionId}" does not exist` }],
    });
  if (mission.tenant !== tenant || mission.missionId !== missionId)
    throw new IllegalStateError('the handler looked up another Mission than the definition names');
  if (!isTerminalMissionState(mission.state)) return mission;
  return reject('mission_terminal', {
    detail: `mission is ${mission.state}`,
    errors: [{ pointer: '/missionId', message: `mission "${missionId}" is ${mission.state}` }],
  });
}

/** CP-1: one error per entry needing an unclaimed capability; null when the deployment claims them all. */
function capabilityUnsupported(
  definition: CapabilityRelevant,
  claimed: readonly string[],
): Rejection<'capability_unsupported'> | null {
  const unsupported = unsupportedCapabilities(definition, claimed);
  if (unsupported.length === 0) return null;
  const errors = unsupported.map(({ capability, pointer }) => ({
    pointer,
    message: `needs capability ${capability}, which this deployment does not claim`,
  }));
  const capabilities = [...new Set(unsupported.map((u) => u.capability))];
  return reject('capability_unsupported', { detail: `unsupported capabilities: ${capabilities.join(', ')}`, errors });
}

/**
 * An unchanged definition returns [], so re-applying a file never resets the dedupe namespace; a re-created
 * Trigger continues its revisions, in a new dedupe epoch and a new life (`createdRevision`).
 */
export function reviseTrigger(command: ReviseTrigger, state: TriggerState): TriggerDecision {
  const validated = validateTriggerDefinition(command.definition);
  if (!validated.ok) return reject('invalid_definition', { errors: validated.errors });
  const conflict = revisionConflict(command, state);
  if (conflict) return conflict;
  const submitted = validated.value;
  if (submitted.type === 'webhook' && command.sourceDefined === false)
    return reject('invalid_definition', {
      errors: [
        { pointer: '/source/sourceId', message: `no source "${submitted.source?.sourceId}" exists in this tenant` },
      ],
    });
  const mission = liveMission(command.mission, command.tenant, submitted.missionId);
  if (isRejection(mission)) return mission;
  const unsupported = capabilityUnsupported(submitted, command.capabilities);
  if (unsupported) return unsupported;
  const definition: TriggerDefinition = {
    ...submitted,
    constraints: resolveConstraints(submitted.constraints, mission.grants),
  };
  const widening = authorityWidening(definition.constraints, definition.causality, mission.grants);
  if (widening.length > 0)
    return reject('authority_widening', {
      detail: "constraints exceed the Mission's current grants",
      errors: widening,
    });
  const pins = definition.type === 'schedule' ? { ...command.pins } : undefined;
  const unchanged =
    state.status === 'defined' &&
    !state.deleted &&
    canonicalJson({ d: state.definition, p: state.pins }) === canonicalJson({ d: definition, p: pins ?? null });
  if (unchanged) return [];
  // A Trigger created again after its deletion starts a new dedupe namespace (api.md, Triggers): never a reused one.
  const dedupeEpoch =
    state.status === 'absent'
      ? 1
      : state.dedupeEpoch + (state.deleted || definition.dedupe.onRevision === 'reset' ? 1 : 0);
  const { tenant, triggerId, reason, actor, at } = command;
  const revision = state.status === 'defined' ? state.revision + 1 : 1;
  return [
    {
      type: 'TriggerRevised',
      data: { tenant, triggerId, revision, definition, dedupeEpoch, reason, actor, at, ...(pins ? { pins } : {}) },
    },
  ];
}

/** Enabling re-checks the Mission and the capabilities; disabling never needs permission. Same value: []. */
export function setTriggerEnabled(command: SetTriggerEnabled, state: TriggerState): TriggerDecision {
  if (state.status === 'absent') return reject('trigger_not_found');
  if (state.deleted) return reject('trigger_deleted', { currentRevision: state.revision });
  const conflict = revisionConflict(command, state);
  if (conflict) return conflict;
  if (state.enabled === command.enabled) return [];
  if (command.enabled) {
    const mission = liveMission(command.mission, command.tenant, state.definition.missionId);
    if (isRejection(mission)) return mission;
    const unsupported = capabilityUnsupported(state.definition, command.capabilities);
    if (unsupported) return unsupported;
  }
  const { tenant, triggerId, reason, actor, at } = command;
  const definition = { ...state.definition, enabled: command.enabled };
  // A toggle is not a dedupe-namespace change: the epoch stays even under `onRevision: reset`.
  const data = {
    tenant,
    triggerId,
    revision: state.revision + 1,
    definition,
    dedupeEpoch: state.dedupeEpoch,
    reason,
    actor,
    at,
  };
  return [{ type: 'TriggerRevised', data: state.pins ? { ...data, pins: state.pins } : data }];
}

/** Deleting a deleted Trigger changes nothing: []. */
export function deleteTrigger(command: DeleteTrigger, state: TriggerState): TriggerDecision {
  if (state.status === 'absent') return reject('trigger_not_found');
  if (state.deleted) return [];
  const conflict = revisionConflict(command, state);
  if (conflict) return conflict;
  const { tenant, triggerId, reason, actor, at } = command;
  return [{ type: 'TriggerDeleted', data: { tenant, triggerId, revision: state.revision + 1, reason, actor, at } }];
}

export function decideTrigger(command: TriggerCommand, state: TriggerState): TriggerDecision {
  switch (command.type) {
    case 'ReviseTrigger':
      return reviseTrigger(command, state);
    case 'SetTriggerEnabled':
      return setTriggerEnabled(command, state);
    case 'DeleteTrigger':
      return deleteTrigger(command, state);
    default: {
      const _: never = command;
      throw new IllegalStateError('unknown trigger command');
    }
  }
}

export const triggerDecider: Decider<TriggerState, TriggerEvent, TriggerCommand> = {
  initialState: initialTriggerState,
  evolve: evolveTrigger,
  decide: decideTrigger,
};
