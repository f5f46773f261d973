import type { EventStore } from '../../domain/ports/event-store.js';
import { missionDecider, type MissionState } from '../../domain/mission/mission.js';
import { missionStream, sourceStream, triggerStream } from '../../domain/shared/ids.js';
import { sourceDecider, type SourceState } from '../../domain/source/source.js';
import { triggerDecider, type TriggerState } from '../../domain/trigger/trigger.js';
import { loadAggregate } from './aggregate.js';

/** Looked up before deciding and put on commands as facts, so the deciders stay pure. */
export const currentMission = async (store: EventStore, tenant: string, missionId: string): Promise<MissionState> =>
  (await loadAggregate(store, missionStream(tenant, missionId), missionDecider)).state;

export const currentTrigger = async (store: EventStore, tenant: string, triggerId: string): Promise<TriggerState> =>
  (await loadAggregate(store, triggerStream(tenant, triggerId), triggerDecider)).state;

export const currentSource = async (store: EventStore, tenant: string, sourceId: string): Promise<SourceState> =>
  (await loadAggregate(store, sourceStream(tenant, sourceId), sourceDecider)).state;
