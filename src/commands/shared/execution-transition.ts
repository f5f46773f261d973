import type {
  EventMetadata,
  EventStore,
  RecordedEvent,
  StreamAppend,
  StreamRead,
} from '../../domain/ports/event-store.js';
import type { ResourceLanes } from '../../domain/ports/resource-lanes.js';
import { CommandRejected, notFound } from '../../domain/shared/errors.js';
import { isRejection, reject } from '../../domain/shared/result.js';
import { missionRefusal, overlapDecider, RESOURCE_LANE_PREFIX } from '../../domain/admission/index.js';
import { missionDecider, type MissionState } from '../../domain/mission/mission.js';
import {
  decideExecution,
  evolveExecution,
  type ExecutionCommand,
  executionDeciderFor,
  type ExecutionEvent,
  type KnownExecution,
  occurrenceIdOf,
  type OverlapEndReason,
  overlapChange,
  slotChange,
} from '../../domain/execution/index.js';
import { claimLimits, type ClaimLimits } from '../../domain/execution/claim-limits.js';
import { type OccurrenceAdmitted, requestCarriedBy } from '../../domain/occurrence/occurrence-events.js';
import { executionStream, missionStream, occurrenceStream, overlapStream } from '../../domain/shared/ids.js';
import {
  cachedSlotReads,
  endStripeLeases,
  type LoadedMissionSlots,
  rememberedSlots,
  rememberStripeAppend,
  slotRelease,
  slotTake,
} from './mission-slots.js';
import { asDomainEvent, cachedRead, foldRead, type Loaded, loadLatest } from './aggregate.js';
import { currentMission } from './lookups.js';
import { requestOf } from './command-context.js';
import { findOwnWrite } from './own-write.js';
import { reportReplayedWrite } from './replayed-writes.js';
import { accepted, appendOf, write } from './write-kernel.js';

export type { KnownExecution };

/** The request's fields a consumer or an operator sees (never the tenant: the caller's own). */
const VISIBLE_REQUEST_FIELDS = [
  'occurrenceId',
  'triggerId',
  'triggerRevision',
  'missionId',
  'lane',
  'scheduledAt',
  'firedAt',
  'input',
  'resourceRefs',
] as const;

type ExecutionRequest = KnownExecution['request'];
type RequestView = Pick<ExecutionRequest, (typeof VISIBLE_REQUEST_FIELDS)[number]> & {
  limits: ClaimLimits;
  /** CA-1: the chain the work descends from (`[]` for a root, `"unknown"` for an untrusted correlation). */
  ancestry: NonNullable<ExecutionRequest['ancestry']>;
  /** The Occurrence ids the execution stands for, in acceptance order: BA-1 a batch's, DD-5 a coalesced group's. */
  members?: string[];
};

/** EX-5: `limits` is the delivery policy's runtime/budget; the Mission's slot limits (`request.limits`) stay internal. */
export function requestView(request: ExecutionRequest): RequestView {
  const fields = Object.fromEntries(VISIBLE_REQUEST_FIELDS.map((field) => [field, request[field]]));
  // BA-1: a batch's members (its input holds their inputs in that order); DD-5: a coalesced group's members.
  const members = request.members ? { members: [...request.members] } : {};
  return {
    ...fields,
    ancestry: request.ancestry ?? [],
    limits: claimLimits(request.delivery),
    ...members,
  } as RequestView;
}

/** Where the store reads several streams together, one round trip for all of `reads`. */
function readTogether(store: EventStore, reads: readonly StreamRead[]): Promise<RecordedEvent[][]> {
  if (store.readStreams) return store.readStreams(reads);
  return Promise.all(reads.map((r) => store.readStream(r.streamId, { fromRevision: r.fromRevision })));
}

/** An execution's admission never changes: its request, when it was decided, and where it was recorded. */
interface Admission {
  request: ExecutionRequest;
  decidedAt: string;
  position: number;
}

const MAX_ADMISSIONS = 20_000;
/** Per store, least recently used first: a completion finds what its claim read, and reads no Occurrence stream. */
const admissions = new WeakMap<EventStore, Map<string, Admission>>();

function admissionsOf(store: EventStore): Map<string, Admission> {
  let known = admissions.get(store);
  if (!known) admissions.set(store, (known = new Map()));
  return known;
}

function rememberAdmission(store: EventStore, executionId: string, admission: Admission): void {
  rememberIn(admissionsOf(store), executionId, admission);
}

function rememberIn<T>(known: Map<string, T>, key: string, value: T): void {
  known.delete(key);
  known.set(key, value);
  if (known.size > MAX_ADMISSIONS) known.delete(known.keys().next().value!);
}

/**
 * Per store, each execution as this process's last transition of it left it. Another writer (a delivery timer of
 * the background thread, another process) may have moved it since, so it only ever decides an append, which
 * compares-and-sets on its revision; a refusal is decided again from a read.
 */
const written = new WeakMap<EventStore, Map<string, Loaded<KnownExecution>>>();

function writtenOf(store: EventStore): Map<string, Loaded<KnownExecution>> {
  let known = written.get(store);
  if (!known) written.set(store, (known = new Map()));
  return known;
}

/** The admission, or (BA-1) the first member's decision of the batch the execution runs, with its request. */
function admissionIn(occurrence: readonly RecordedEvent[], executionId: string): Admission | undefined {
  const admitted = occurrence.find((e) => requestCarriedBy(e)?.executionId === executionId);
  const data = admitted?.data as OccurrenceAdmitted['data'] | undefined;
  return admitted && data?.request
    ? { request: data.request, decidedAt: data.decidedAt, position: admitted.position }
    : undefined;
}

interface LoadedForTransition {
  loaded: Loaded<KnownExecution>;
  /** A claim's: the execution's Mission as it is now (AD-2). */
  mission?: MissionState;
  /** The execution's events as read, so a retried request finds its own (decision 9). */
  lifecycle: readonly RecordedEvent[];
  fold: (events: readonly RecordedEvent[]) => KnownExecution;
  /** The Mission's slot stripes, when they could be read in the same round trip. */
  slots?: LoadedMissionSlots;
}

function deciderOf({ request, decidedAt }: Admission) {
  const decider = executionDeciderFor(request, decidedAt);
  return (events: readonly RecordedEvent[]) =>
    events.reduce(
      (state, e) => decider.evolve(state, asDomainEvent<ExecutionEvent>(e)),
      decider.initialState,
    ) as KnownExecution;
}

/**
 * Without a round trip, when this process last wrote the execution and knows every stripe of its Mission. Only where
 * a transition's appends are all or nothing: a stale stripe must fail the execution's append with it.
 */
function rememberedForTransition(store: EventStore, tenant: string, executionId: string): LoadedForTransition | null {
  if (!store.appendStreams) return null;
  const admission = admissionsOf(store).get(executionId);
  const loaded = writtenOf(store).get(executionId);
  if (!admission || !loaded || admission.request.tenant !== tenant) return null;
  const slots = rememberedSlots(store, tenant, admission.request.missionId);
  return slots ? { loaded, lifecycle: [], fold: deciderOf(admission), slots } : null;
}

/**
 * One round trip: the execution's lifecycle, its admission unless known here, and its Mission's slot stripes when the
 * Mission is known beforehand (from the admission, or `missionHint`, e.g. claim-next's candidate) and its stripes are
 * cached. Another tenant's execution does not exist for the caller.
 */
async function loadForTransition(
  store: EventStore,
  tenant: string,
  executionId: string,
  missionHint?: string,
  withMission = false,
): Promise<LoadedForTransition> {
  const occurrenceId = occurrenceIdOf(executionId);
  if (occurrenceId === null) throw notFound('No such execution.');
  const known = admissionsOf(store).get(executionId);
  if (known && known.request.tenant !== tenant) throw notFound('No such execution.');
  const missionId = known?.request.missionId ?? missionHint;
  const slotReads = missionId === undefined ? undefined : cachedSlotReads(store, tenant, missionId);
  const missionRead =
    withMission && missionId !== undefined ? cachedRead(store, missionStream(tenant, missionId)) : null;
  const reads: StreamRead[] = [
    ...(known ? [] : [{ streamId: occurrenceStream(occurrenceId), fromRevision: 0 }]),
    { streamId: executionStream(executionId), fromRevision: 0 },
    ...(missionRead ? [missionRead] : []),
    ...(slotReads?.reads ?? []),
  ];
  const read = await readTogether(store, reads);
  const admission = known ?? admissionIn(read[0] ?? [], executionId);
  const lifecycle = read[known ? 0 : 1] ?? [];
  if (!admission || admission.request.tenant !== tenant) throw notFound('No such execution.');
  if (!known) rememberAdmission(store, executionId, admission);
  const { request } = admission;
  const fold = deciderOf(admission);
  const last = lifecycle[lifecycle.length - 1];
  const loaded = {
    state: fold(lifecycle),
    revision: last?.revision ?? -1,
    position: last?.position ?? admission.position,
  };
  const afterLifecycle = known ? 1 : 2;
  const sameMission = request.missionId === missionId;
  const mission = !withMission
    ? undefined
    : missionRead && sameMission
      ? foldRead(store, missionRead.streamId, missionDecider, read[afterLifecycle] ?? []).state
      : await currentMission(store, tenant, request.missionId);
  const slotsFrom = afterLifecycle + (missionRead ? 1 : 0);
  const slots = slotReads && sameMission ? slotReads.finish(read.slice(slotsFrom)) : undefined;
  return { loaded, lifecycle, fold, ...(mission ? { mission } : {}), ...(slots ? { slots } : {}) };
}

/** Another tenant's execution does not exist for the caller. */
export async function loadExecution(
  store: EventStore,
  tenant: string,
  executionId: string,
): Promise<Loaded<KnownExecution>> {
  return (await loadForTransition(store, tenant, executionId)).loaded;
}

export interface TransitionOptions {
  /** The execution's Mission when the caller knows it (claim-next's candidate): its stripes are read with it. */
  missionHint?: string;
  /** Appends that belong to the same decision, all or nothing with it (CA-2: an Operation's correlation key). */
  alongside?: (events: readonly ExecutionEvent[]) => Promise<StreamAppend[]>;
  /**
   * No earlier run of this request can have written (its Idempotency-Key was not taken over): decide from what this
   * process last wrote, when it knows, instead of reading. A completion after a claim of this process reads nothing.
   * Never for a claim: it asks the Mission as it is now.
   */
  fromMemory?: boolean;
  /**
   * AD-5, an explicit claim's: asked whose turn it is on the request's resource lane. claim-next's candidates come
   * from the lanes' queues already.
   */
  lanes?: ResourceLanes;
}

/**
 * EX-2/EX-3, AD-2: a claim takes the Mission's slot and the end of an attempt gives it back, each in the same
 * all-or-nothing append as the execution event, compared-and-set on the slot stream's revision: two claims
 * racing for the last slot conflict, and the retry decides `concurrency_limit` from the fresh count.
 * BA-3: a terminal transition ends the Trigger's overlap marker in the same append; a recovery takes it back.
 */
export function transitionExecution(
  store: EventStore,
  tenant: string,
  command: ExecutionCommand,
  metadata: EventMetadata,
  options: TransitionOptions = {},
): Promise<{ state: KnownExecution; events: ExecutionEvent[]; position: number }> {
  const leases: string[] = [];
  const retried = requestOf(metadata);
  const { missionHint, alongside } = options;
  const claim = command.type === 'ClaimExecution';
  return write(store, async (attemptNumber) => {
    endStripeLeases(leases);
    const remembered =
      options.fromMemory && !claim && attemptNumber === 1
        ? rememberedForTransition(store, tenant, command.executionId)
        : null;
    if (remembered) {
      // A refusal, or nothing to write, may come from a state another writer has moved on from: decided again below.
      const planned = await plan(remembered).catch((error: unknown) => {
        if (error instanceof CommandRejected) return null;
        throw error;
      });
      if (planned && planned.appends.length > 0) return planned;
      endStripeLeases(leases);
    }
    return plan(await loadForTransition(store, tenant, command.executionId, missionHint, claim));
  }).finally(() => endStripeLeases(leases));

  /** A claim of a pending execution asks its Mission (AD-2) and, explicitly, its resource lane (AD-5). */
  async function withFacts(state: KnownExecution, position: number, mission?: MissionState): Promise<ExecutionCommand> {
    if (command.type !== 'ClaimExecution' || state.status !== 'pending') return command;
    const refusal = mission ? missionRefusal(mission) : null;
    const { lanes } = options;
    const { tenant: owner, lane } = state.request;
    const turn =
      refusal === null && lanes && lane.startsWith(RESOURCE_LANE_PREFIX)
        ? await lanes.turnOf(owner, lane, command.executionId, position)
        : null;
    const laneAhead = !turn || turn.now ? null : (turn.after ?? 'an older execution its queue does not show yet');
    return { ...command, refusal, laneAhead };
  }

  async function plan({ loaded, lifecycle, fold, slots, mission }: LoadedForTransition) {
    const own = retried ? findOwnWrite(lifecycle, retried) : null;
    if (own) {
      // This request already moved the execution (its answer was lost): that answer, no second transition
      reportReplayedWrite();
      const replayed = {
        state: fold(own.through),
        events: own.own.map((e) => asDomainEvent<ExecutionEvent>(e)),
        position: own.position,
      };
      return { appends: [], answer: () => replayed };
    }
    const events = accepted(decideExecution(await withFacts(loaded.state, loaded.position, mission), loaded.state));
    const after = events.reduce(evolveExecution, loaded.state);
    const appends: StreamAppend[] = [];
    if (events.length > 0) appends.push(appendOf(executionStream(command.executionId), events, metadata, loaded));
    const { request } = loaded.state;
    const slot = slotChange(loaded.state, after);
    const stripe =
      slot && 'take' in slot
        ? await slotTake(store, request, command.at, metadata, leases, slots)
        : slot && 'release' in slot
          ? await slotRelease(store, request, slot.release, command.at, metadata, leases, slots)
          : null;
    if (stripe) appends.push(stripe);
    const overlap = overlapChange(loaded.state, after);
    if (overlap) appends.push(...(await overlapMove(store, after, overlap, command.at, metadata)));
    if (alongside && events.length > 0) appends.push(...(await alongside(events)));
    return {
      appends,
      answer: (positions: readonly number[]) => {
        const position = positions[0] ?? loaded.position;
        if (events.length > 0) {
          rememberIn(writtenOf(store), command.executionId, {
            state: after,
            revision: loaded.revision + events.length,
            position,
          });
          if (stripe) rememberStripeAppend(store, stripe, positions[appends.indexOf(stripe)] ?? position);
        }
        return { state: after, events, position };
      },
    };
  }
}

/**
 * Empty when an end finds the marker naming another execution: it never frees the Trigger for another's overlap.
 * A recovery that finds another execution holding it is refused (BA-3, AD-3 `overlap_skip`): it would run beside
 * the one that runs now. The marker's revision is compared-and-set with the recovery, so a racing admission loses
 * to one or the other, never both.
 */
async function overlapMove(
  store: EventStore,
  state: KnownExecution,
  change: { start: true } | { end: OverlapEndReason },
  at: string,
  metadata: EventMetadata,
): Promise<StreamAppend[]> {
  const { tenant, triggerId, executionId } = state.request;
  const streamId = overlapStream(tenant, triggerId);
  const marker = await loadLatest(store, streamId, overlapDecider);
  const decided = overlapDecider.decide(
    'end' in change
      ? { type: 'EndTriggerExecution', tenant, triggerId, executionId, why: change.end, at }
      : { type: 'StartTriggerExecution', tenant, triggerId, executionId, at },
    marker.state,
  );
  if (isRejection(decided)) {
    if ('end' in change) return [];
    throw new CommandRejected(
      reject('recovery_refused', { detail: `${decided.detail} (the Trigger skips overlaps)`, reason: 'overlap_skip' }),
    );
  }
  if (decided.length === 0) return [];
  return [appendOf(streamId, decided, metadata, marker)];
}
