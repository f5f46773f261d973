import { IllegalStateError } from '../shared/errors.js';
import type { DefinedMission, MissionState } from '../mission/mission.js';
import type { DefinedTrigger, TriggerState } from '../trigger/trigger.js';
import type { ReasonCode } from './reasons.js';

/** What work is bound to: the Trigger revision that accepted it and the Mission that Trigger served then. */
export interface Binding {
  tenant: string;
  triggerId: string;
  triggerRevision: number;
  missionId: string;
}

export type Standing =
  | { stands: true; trigger: DefinedTrigger; mission: DefinedMission }
  | { stands: false; reason: ReasonCode; evidence: Record<string, unknown> };

const fallen = (reason: ReasonCode, evidence: Record<string, unknown>): Standing => ({
  stands: false,
  reason,
  evidence,
});

/**
 * AD-2/AD-3, the authority half of admission: whether the bound Trigger and Mission, as they are *now*, still
 * stand behind work bound to them. Trigger first (deleted, disabled, revision superseded), then the Mission
 * (paused, cancelled, revoked). Admission starts with it; an operator's recovery (EX-4) asks it again.
 * An older revision stands only when the current definition accepts older revisions *and* still binds the
 * same Mission, and only within the Trigger's current life: work never follows a Trigger to another Mission, nor
 * a deleted Trigger to the one later created under its id.
 */
export function authorityStanding(bound: Binding, trigger: TriggerState, mission: MissionState): Standing {
  const sameTrigger =
    trigger.status === 'absent' || (trigger.tenant === bound.tenant && trigger.triggerId === bound.triggerId);
  const sameMission =
    mission.status === 'absent' || (mission.tenant === bound.tenant && mission.missionId === bound.missionId);
  if (!sameTrigger || !sameMission)
    throw new IllegalStateError('the facts describe another Trigger or Mission than the work is bound to');

  if (trigger.status === 'absent' || trigger.deleted) {
    return fallen('trigger_deleted', {
      triggerId: bound.triggerId,
      currentRevision: trigger.status === 'absent' ? null : trigger.revision,
    });
  }
  // A life of the Trigger before a deletion is gone with it, whatever the Trigger now re-created under its id accepts.
  if (bound.triggerRevision < trigger.createdRevision) {
    return fallen('trigger_deleted', {
      triggerId: bound.triggerId,
      triggerRevision: bound.triggerRevision,
      currentRevision: trigger.revision,
    });
  }
  if (!trigger.enabled)
    return fallen('trigger_disabled', { triggerId: bound.triggerId, currentRevision: trigger.revision });
  const olderAccepted =
    trigger.definition.acceptOlderRevisions &&
    bound.triggerRevision < trigger.revision &&
    trigger.definition.missionId === bound.missionId;
  if (bound.triggerRevision !== trigger.revision && !olderAccepted) {
    return fallen('revision_superseded', {
      triggerRevision: bound.triggerRevision,
      currentRevision: trigger.revision,
    });
  }

  if (mission.status === 'absent')
    return fallen('mission_revoked', { missionId: bound.missionId, missionState: 'absent' });
  const refusal = missionRefusal(mission);
  if (refusal === null) return { stands: true, trigger, mission };
  return fallen(refusal, {
    missionId: mission.missionId,
    missionState: mission.state,
    missionRevision: mission.revision,
  });
}

export type MissionRefusal = 'mission_paused' | 'mission_cancelled' | 'mission_revoked';

/**
 * The Mission half of AD-2: why work of a Mission may not run now, null while it is active. A Mission that does not
 * exist grants nothing. Admission and recovery ask it through `authorityStanding`; a claim asks it alone (AD-2: work
 * admitted before a pause or a cancellation never runs while the Mission stands so).
 */
export function missionRefusal(mission: MissionState): MissionRefusal | null {
  if (mission.status === 'absent') return 'mission_revoked';
  switch (mission.state) {
    case 'paused':
      return 'mission_paused';
    case 'cancelled':
      return 'mission_cancelled';
    case 'revoked':
      return 'mission_revoked';
    case 'active':
      return null;
    default: {
      const _: never = mission.state;
      throw new IllegalStateError('unknown mission state');
    }
  }
}
