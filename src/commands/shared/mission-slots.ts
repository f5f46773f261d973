import {
  concurrencyDecider,
  type ConcurrencyEvent,
  type ConcurrencyState,
  type MissionSlots,
  releaseMissionSlot,
  SLOT_STRIPES,
  type SlotReleaseReason,
  stripeOf,
  takeMissionSlot,
} from '../../domain/admission/index.js';
import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import { concurrencyStripeStream } from '../../domain/shared/ids.js';
import type { ExecutionRequest } from '../../domain/occurrence/occurrence-events.js';
import { type Loaded, loadAggregates, loadLatest } from './aggregate.js';
import { aggregateCache } from './aggregate-cache.js';
import { accepted, appendOf } from './write-kernel.js';

/**
 * AD-2: a Mission's concurrency slots, striped over SLOT_STRIPES streams (domain/admission/slot-stripes.ts). A
 * claim takes one and a terminal transition gives it back, each in the same all-or-nothing append as the execution
 * event, compared-and-set on one stripe's revision: racing claimers pick stripes at random, so they rarely meet.
 */
export async function slotTake(
  store: EventStore,
  request: ExecutionRequest,
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId, limits } = request;
  const slots = await loadMissionSlots(store, tenant, missionId);
  const taken = takeMissionSlot(
    { tenant, missionId, executionId, limit: limits.maxConcurrent, at },
    slots.state,
    atRandom,
  );
  return stripeAppend(tenant, missionId, accepted(taken), metadata, slots.stripes);
}

export async function slotRelease(
  store: EventStore,
  request: ExecutionRequest,
  why: SlotReleaseReason,
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId } = request;
  const slots = await loadMissionSlots(store, tenant, missionId);
  const released = releaseMissionSlot({ tenant, missionId, executionId, why, at }, slots.state, atRandom);
  return stripeAppend(tenant, missionId, released, metadata, slots.stripes);
}

const atRandom = (stripes: readonly number[]): number => stripes[Math.floor(Math.random() * stripes.length)]!;

export interface LoadedMissionSlots {
  state: MissionSlots;
  stripes: readonly Loaded<ConcurrencyState>[];
}

/**
 * Every stripe: the cached ones from their cached revision on in one round trip where the store reads several
 * streams together, the others by their last event only (each event carries its stripe's count).
 */
export async function loadMissionSlots(
  store: EventStore,
  tenant: string,
  missionId: string,
): Promise<LoadedMissionSlots> {
  const ids = Array.from({ length: SLOT_STRIPES }, (_, k) => concurrencyStripeStream(tenant, missionId, k));
  const cache = aggregateCache(store);
  const cached = store.readStreams ? ids.filter((id) => cache.has(id)) : [];
  const [fromCache, latest] = await Promise.all([
    cached.length > 0
      ? loadAggregates(
          store,
          cached.map((streamId) => ({ streamId, decider: concurrencyDecider })),
        )
      : [],
    Promise.all(ids.filter((id) => !cached.includes(id)).map((id) => loadLatest(store, id, concurrencyDecider))),
  ]);
  const byId = new Map<string, Loaded<ConcurrencyState>>();
  cached.forEach((id, i) => byId.set(id, fromCache[i]!));
  ids.filter((id) => !cached.includes(id)).forEach((id, i) => byId.set(id, latest[i]!));
  const stripes = ids.map((id) => byId.get(id)!);
  return { state: stripes.map((s) => s.state), stripes };
}

/** The events of one stripe, appended at the revision that stripe was read. */
function stripeAppend(
  tenant: string,
  missionId: string,
  events: ConcurrencyEvent[],
  metadata: EventMetadata,
  stripes: readonly Loaded<ConcurrencyState>[],
): StreamAppend {
  const stripe = stripeOf(events[0]!);
  return appendOf(concurrencyStripeStream(tenant, missionId, stripe), events, metadata, stripes[stripe]!);
}
