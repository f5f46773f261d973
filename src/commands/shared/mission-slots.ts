import { concurrencyDecider, type SlotReleaseReason } from '../../domain/admission/index.js';
import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import { concurrencyStream } from '../../domain/shared/ids.js';
import type { ExecutionRequest } from '../../domain/occurrence/occurrence-events.js';
import { loadLatest } from './aggregate.js';
import { accepted, appendOf } from './write-kernel.js';

/**
 * AD-2: a Mission's concurrency slots. A claim takes one and a terminal transition gives it back, each in the
 * same all-or-nothing append as the execution event, compared-and-set on the slot stream's revision.
 */
export async function slotTake(
  store: EventStore,
  request: ExecutionRequest,
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId, limits } = request;
  const streamId = concurrencyStream(tenant, missionId);
  const slots = await loadLatest(store, streamId, concurrencyDecider);
  const taken = concurrencyDecider.decide(
    { type: 'TakeSlot', tenant, missionId, executionId, limit: limits.maxConcurrent, at },
    slots.state,
  );
  return appendOf(streamId, accepted(taken), metadata, slots);
}

export async function slotRelease(
  store: EventStore,
  request: ExecutionRequest,
  why: SlotReleaseReason,
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId } = request;
  const streamId = concurrencyStream(tenant, missionId);
  const slots = await loadLatest(store, streamId, concurrencyDecider);
  const released = concurrencyDecider.decide(
    { type: 'ReleaseSlot', tenant, missionId, executionId, why, at },
    slots.state,
  );
  return appendOf(streamId, accepted(released), metadata, slots);
}
