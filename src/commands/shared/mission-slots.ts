import {
  concurrencyDecider,
  type ConcurrencyEvent,
  type ConcurrencyState,
  type MissionSlots,
  releaseMissionSlot,
  runningOf,
  SLOT_STRIPES,
  type SlotReleaseReason,
  stripeOf,
  takeMissionSlot,
} from '../../domain/admission/index.js';
import type {
  EventMetadata,
  EventStore,
  RecordedEvent,
  StreamAppend,
  StreamRead,
} from '../../domain/ports/event-store.js';
import { concurrencyStripeStream } from '../../domain/shared/ids.js';
import type { ExecutionRequest } from '../../domain/occurrence/occurrence-events.js';
import { cachedRead, foldRead, type Loaded, loadAggregates, loadLatest } from './aggregate.js';
import { aggregateCache, remember } from './aggregate-cache.js';
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
  leases: string[] = [],
  preloaded?: LoadedMissionSlots,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId, limits } = request;
  const slots = preloaded ?? (await loadMissionSlots(store, tenant, missionId));
  const taken = takeMissionSlot(
    { tenant, missionId, executionId, limit: limits.maxConcurrent, at },
    slots.state,
    notBeingWritten(slots.ids, leases),
  );
  return stripeAppend(tenant, missionId, accepted(taken), metadata, slots.stripes);
}

export async function slotRelease(
  store: EventStore,
  request: ExecutionRequest,
  why: SlotReleaseReason,
  at: string,
  metadata: EventMetadata,
  leases: string[] = [],
  preloaded?: LoadedMissionSlots,
): Promise<StreamAppend> {
  const { tenant, missionId, executionId } = request;
  let slots = preloaded ?? (await loadMissionSlots(store, tenant, missionId));
  // This execution holds a slot, so the stripes cannot all be free: they were remembered behind, or read by several
  // statements while releases moved counts between them. Read again in one statement (a count lost before stays lost).
  if (runningOf(slots.state) === 0) slots = (await slotsInOneRead(store, tenant, missionId)) ?? slots;
  const released = releaseMissionSlot(
    { tenant, missionId, executionId, why, at },
    slots.state,
    notBeingWritten(slots.ids, leases),
  );
  return stripeAppend(tenant, missionId, released, metadata, slots.stripes);
}

const atRandom = (stripes: readonly number[]): number => stripes[Math.floor(Math.random() * stripes.length)]!;

/**
 * Stripe streams an append of this process is writing right now, with how many. Two claims of one process that
 * picked the same stripe at random lost a compare-and-set and started again (a reload and a second append); this
 * process's own appends are known, so they are steered apart. Only a preference: the compare-and-set stays the bound.
 */
const beingWritten = new Map<string, number>();

/** Picks at random among the stripes no append of this process is writing (any when all are), and leases it. */
function notBeingWritten(ids: readonly string[], leases: string[]) {
  return (stripes: readonly number[]): number => {
    const idle = stripes.filter((k) => !beingWritten.has(ids[k]!));
    const stripe = atRandom(idle.length > 0 ? idle : stripes);
    const id = ids[stripe]!;
    beingWritten.set(id, (beingWritten.get(id) ?? 0) + 1);
    leases.push(id);
    return stripe;
  };
}

/** Ends the leases `slotTake`/`slotRelease` added to `leases` (after the append, whatever its outcome), emptying it. */
export function endStripeLeases(leases: string[]): void {
  for (const id of leases.splice(0)) {
    const left = (beingWritten.get(id) ?? 1) - 1;
    if (left > 0) beingWritten.set(id, left);
    else beingWritten.delete(id);
  }
}

export interface LoadedMissionSlots {
  /** The stripes' stream ids, index = stripe. */
  ids: readonly string[];
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
  ids
    .filter((id) => !cached.includes(id))
    .forEach((id, i) => {
      const loaded = latest[i]!;
      byId.set(id, loaded);
      // A stripe no take has reached yet (a limit below SLOT_STRIPES leaves some without a share) was read by its
      // own query on every claim and release. Remembered at revision -1, it joins the one read from revision 0.
      if (loaded.revision < 0 && store.readStreams) remember(cache, id, loaded);
    });
  const stripes = ids.map((id) => byId.get(id)!);
  return { ids, state: stripes.map((s) => s.state), stripes };
}

/**
 * The stripes' reads, to be sent with another read in one round trip, when every stripe is cached (each is then read
 * from its cached revision on; a cold stripe is read by its last event only, in loadMissionSlots). `finish` folds them.
 */
export function cachedSlotReads(
  store: EventStore,
  tenant: string,
  missionId: string,
): { reads: StreamRead[]; finish: (read: RecordedEvent[][]) => LoadedMissionSlots } | undefined {
  if (!store.readStreams) return undefined;
  const ids = Array.from({ length: SLOT_STRIPES }, (_, k) => concurrencyStripeStream(tenant, missionId, k));
  const cache = aggregateCache(store);
  if (!ids.every((id) => cache.has(id))) return undefined;
  return {
    reads: ids.map((id) => cachedRead(store, id)),
    finish: (read) => {
      const stripes = ids.map((id, k) => foldRead(store, id, concurrencyDecider, read[k] ?? []));
      return { ids, state: stripes.map((s) => s.state), stripes };
    },
  };
}

/** Every stripe as of one statement, when the store reads several streams together and all stripes are cached. */
async function slotsInOneRead(
  store: EventStore,
  tenant: string,
  missionId: string,
): Promise<LoadedMissionSlots | undefined> {
  const together = cachedSlotReads(store, tenant, missionId);
  return together && store.readStreams ? together.finish(await store.readStreams(together.reads)) : undefined;
}

/**
 * Every stripe as this process last read or wrote it, without a read (undefined unless all are known). Possibly
 * stale: only for decisions whose appends compare-and-set on it, and whose refusals are decided again from a read.
 */
export function rememberedSlots(store: EventStore, tenant: string, missionId: string): LoadedMissionSlots | undefined {
  const ids = Array.from({ length: SLOT_STRIPES }, (_, k) => concurrencyStripeStream(tenant, missionId, k));
  const cache = aggregateCache(store);
  const stripes = ids.map((id) => cache.get(id) as Loaded<ConcurrencyState> | undefined);
  if (stripes.some((stripe) => stripe === undefined)) return undefined;
  const known = stripes as Loaded<ConcurrencyState>[];
  return { ids, state: known.map((s) => s.state), stripes: known };
}

/** After a stripe append committed at `position`: each stripe event carries the stripe's whole count. */
export function rememberStripeAppend(store: EventStore, append: StreamAppend, position: number): void {
  const { streamId, events, expected } = append;
  if (typeof expected !== 'number' && expected !== 'no_stream') return;
  const state = events.reduce(
    (s, e) => concurrencyDecider.evolve(s, { type: e.type, data: e.data } as ConcurrencyEvent),
    concurrencyDecider.initialState,
  );
  remember(aggregateCache(store), streamId, {
    state,
    revision: (expected === 'no_stream' ? -1 : expected) + events.length,
    position,
  });
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
