import type { Decider } from '../shared/decider.js';
import { reject, type Rejection } from '../shared/result.js';
import {
  initialPollState,
  type ItemDisposition,
  KEPT_QUARANTINED,
  lastPolledBinding,
  type PollEvent,
  type PollHeld,
  pollStateFor,
  type PollState,
  type QuarantinedItem,
  secretOf,
} from './poll-events.js';
import type { PollFailure } from './poll-page.js';

/** An item of the fetched page with the facts the handler looked up: its Occurrence id and whether it exists. */
export interface CandidateItem {
  index: number;
  itemId: string | null;
  /** Set when the item cannot become an Occurrence (no id, schema, no dedupe key); then occurrenceId is null. */
  problem: string | null;
  occurrenceId: string | null;
  /** An Occurrence of this identity is already recorded. */
  observed: boolean;
  /** The item's payload digest (`PollItem.digest`). */
  digest: string | null;
  /** With `observed`: the payload digest the recorded Occurrence was accepted with (OC-4), null when not known. */
  recordedDigest: string | null;
}

interface PollCommandBase {
  tenant: string;
  triggerId: string;
  /** The Trigger's `createdRevision`: a state another life of the Trigger left is not this one's (pollStateFor). */
  life: number;
  /** Database clock. */
  at: string;
}

/** The outcome of one fetch, decided against the state it was fetched from (`basedOnSeq`). */
export interface RecordPoll extends PollCommandBase {
  type: 'RecordPoll';
  triggerRevision: number;
  /** The binding polled: the Trigger revision's url. */
  url: string;
  basedOnSeq: number;
  onInvalidItem: 'hold' | 'quarantine';
  outcome: { ok: false; failure: PollFailure } | { ok: true; nextCursor: string | null; items: CandidateItem[] };
}

export interface SetPollCursor extends PollCommandBase {
  type: 'SetPollCursor';
  /** The binding the cursor is for: the current revision's url. */
  url: string;
  cursor: string | null;
  reason: string;
  actor: string;
}

/** Records that a sealed secret row (written before, decision 7) is the one later polls send. */
export interface SetPollSecret extends PollCommandBase {
  type: 'SetPollSecret';
  secretId: string;
  actor: string;
  /** The origin of the URL the Trigger names now: the secret goes nowhere else (`secretGoesTo`). */
  origin: string;
}

export type PollCommand = RecordPoll | SetPollCursor | SetPollSecret;

/** PO-1: the cursor of the binding polled now; none when the Trigger's url changed since it was recorded. */
export const cursorFor = (state: Pick<PollState, 'cursor' | 'binding'>, url: string): string | null =>
  state.binding === url ? state.cursor : null;

/**
 * A binding other than the one last polled (the revision changed the url) is new: the failures in a row and the
 * backoff were the old upstream's, and fixing a failing poll's url must not leave it idle for the old backoff.
 */
export const isNewBinding = (state: Pick<PollState, 'polled' | 'binding'>, url: string): boolean => {
  const last = lastPolledBinding(state);
  return last !== null && last !== url;
};

/** PO-4: the failures in a row that back off a poll of `url`: none for a new binding. */
export const failuresFor = (
  state: Pick<PollState, 'polled' | 'binding' | 'consecutiveFailures'>,
  url: string,
): number => (isNewBinding(state, url) ? 0 : state.consecutiveFailures);

export function evolvePoll(_state: PollState, event: PollEvent): PollState {
  return event.data.state;
}

/**
 * PO-2..PO-4. A fetch based on an older state than the stream's (another poller recorded meanwhile, or an
 * operator set the cursor) records nothing: its page may belong to a cursor that is no longer current. A state
 * an earlier life of the Trigger left (deleted, then created again) counts as a new poll Trigger's.
 */
export function decidePoll(command: PollCommand, stored: PollState): PollEvent[] | Rejection {
  const state = pollStateFor(stored, command.life);
  switch (command.type) {
    case 'RecordPoll':
      return recordPoll(command, state);
    case 'SetPollCursor':
      return setCursor(command, state);
    case 'SetPollSecret':
      return setSecret(command, state);
    default: {
      const _: never = command;
      return reject('unknown_command');
    }
  }
}

function recordPoll(command: RecordPoll, state: PollState): PollEvent[] {
  const { tenant, triggerId, triggerRevision, at, outcome } = command;
  if (command.basedOnSeq !== state.seq || state.held !== null) return [];
  const base = { tenant, triggerId, triggerRevision, at };
  const from = cursorFor(state, command.url);
  if (!outcome.ok) {
    const next: PollState = {
      ...state,
      seq: state.seq + 1,
      lastPollAt: at,
      lastResult: 'failed',
      consecutiveFailures: failuresFor(state, command.url) + 1,
      lastError: outcome.failure,
      polled: command.url,
      life: command.life,
    };
    return [{ type: 'PollFailed', data: { ...base, cursor: from, failure: outcome.failure, state: next } }];
  }
  const { items, held } = dispose(outcome.items, command.onInvalidItem, at);
  const to = held ? from : (outcome.nextCursor ?? from);
  const next: PollState = {
    seq: state.seq + 1,
    cursor: to,
    binding: command.url,
    lastPollAt: at,
    lastResult: held ? 'held' : 'ok',
    consecutiveFailures: 0,
    lastError: null,
    held,
    quarantined: quarantine(state.quarantined, items, outcome.items, at),
    polled: command.url,
    secret: secretOf(state),
    life: command.life,
  };
  return [{ type: 'PollCompleted', data: { ...base, cursor: { from, to }, items, held, state: next } }];
}

/**
 * In array order; `hold` stops before the item. As for a webhook redelivery (OC-3, OC-4), the first accepted payload
 * of an identity is fixed: a repeat with the same digest is a duplicate, with another a payload_conflict — whether
 * the first was recorded by an earlier poll or earlier in this page.
 */
function dispose(
  candidates: readonly CandidateItem[],
  onInvalidItem: RecordPoll['onInvalidItem'],
  at: string,
): { items: ItemDisposition[]; held: PollHeld | null } {
  const items: ItemDisposition[] = [];
  const fixedInPage = new Map<string, string | null>();
  for (const candidate of candidates) {
    const { index, itemId, occurrenceId } = candidate;
    if (candidate.problem !== null || occurrenceId === null || itemId === null) {
      const reason = candidate.problem ?? 'the item has no identity';
      if (onInvalidItem === 'hold') return { items, held: { itemId, index, reason, at } };
      items.push({ index, itemId, disposition: 'quarantined', reason });
      continue;
    }
    if (!candidate.observed && !fixedInPage.has(occurrenceId)) {
      fixedInPage.set(occurrenceId, candidate.digest);
      items.push({ index, itemId, disposition: 'accepted', occurrenceId });
      continue;
    }
    const fixed = (candidate.observed ? candidate.recordedDigest : fixedInPage.get(occurrenceId)) ?? null;
    // A digest not known on either side cannot show a conflict: a duplicate, as before digests were compared.
    const conflict = fixed !== null && candidate.digest !== null && fixed !== candidate.digest;
    items.push({ index, itemId, disposition: conflict ? 'payload_conflict' : 'duplicate', occurrenceId });
  }
  return { items, held: null };
}

/**
 * PO-4: the operator's record of quarantined items, the newest KEPT_QUARANTINED. Every quarantined item has its
 * disposition in its page; an item already recorded (same id, same digest) — an upstream returning it on every poll —
 * is not recorded again, so it cannot crowd the others out.
 */
function quarantine(
  kept: readonly QuarantinedItem[],
  items: readonly ItemDisposition[],
  candidates: readonly CandidateItem[],
  at: string,
): QuarantinedItem[] {
  const digests = new Map(candidates.map((c) => [c.index, c.digest]));
  const recorded = [...kept];
  for (const item of items) {
    if (item.disposition !== 'quarantined') continue;
    const digest = digests.get(item.index) ?? null;
    if (digest !== null && recorded.some((r) => r.itemId === item.itemId && r.digest === digest)) continue;
    recorded.push({ itemId: item.itemId, index: item.index, reason: item.reason, at, digest });
  }
  return recorded.slice(-KEPT_QUARANTINED);
}

function setCursor(command: SetPollCursor, state: PollState): PollEvent[] {
  const { tenant, triggerId, at, actor, reason, cursor } = command;
  const next: PollState = {
    ...state,
    seq: state.seq + 1,
    cursor,
    binding: command.url,
    held: null,
    life: command.life,
  };
  const from = cursorFor(state, command.url);
  return [
    {
      type: 'PollCursorSet',
      data: { tenant, triggerId, at, actor, reason, from, to: cursor, released: state.held, state: next },
    },
  ];
}

/**
 * Nothing else moves: the next poll sends the new secret (rotation); the cursor, hold and failures stay. A secret
 * set in an earlier life of the Trigger is not replaced but gone: that life ended with its deletion.
 */
function setSecret(command: SetPollSecret, state: PollState): PollEvent[] {
  const { tenant, triggerId, at, actor, secretId, origin } = command;
  const next: PollState = { ...state, seq: state.seq + 1, secret: { secretId, setAt: at, origin }, life: command.life };
  const replaced = secretOf(state)?.secretId ?? null;
  return [{ type: 'PollSecretSet', data: { tenant, triggerId, at, actor, secretId, replaced, state: next } }];
}

export const pollDecider: Decider<PollState, PollEvent, PollCommand> = {
  initialState: initialPollState,
  evolve: evolvePoll,
  decide: decidePoll,
};

/** Items of a completed poll that become Occurrences, in acceptance order. */
export const acceptedItems = (events: readonly PollEvent[]): number[] =>
  events.flatMap((e) =>
    e.type === 'PollCompleted' ? e.data.items.filter((i) => i.disposition === 'accepted').map((i) => i.index) : [],
  );

/** PO-4 backoff: each failure in a row doubles the wait, up to an hour (or the interval, if longer). */
export function nextPollDelaySeconds(everySeconds: number, consecutiveFailures: number): number {
  if (consecutiveFailures <= 0) return everySeconds;
  return Math.min(everySeconds * 2 ** Math.min(consecutiveFailures, 16), Math.max(everySeconds, 3600));
}

/**
 * The wait a revision plans from the last poll: none for a new binding (due at once, as a new poll Trigger is), else
 * the revision's interval backed off per failure of this binding in a row.
 */
export function replanDelaySeconds(
  state: Pick<PollState, 'polled' | 'binding' | 'consecutiveFailures'>,
  poll: { url: string; everySeconds: number },
): number {
  if (isNewBinding(state, poll.url)) return 0;
  return nextPollDelaySeconds(poll.everySeconds, failuresFor(state, poll.url));
}

/**
 * OP-1: this many failed polls in a row make the Trigger `failing`: nothing of its upstream comes in until someone
 * fixes it (one or two are a blip the backoff rides out).
 */
export const FAILING_AFTER_FAILURES = 3;

export function pollHealth(state: Pick<PollState, 'held' | 'consecutiveFailures'>): 'ok' | 'failing' | 'held' {
  if (state.held !== null) return 'held';
  return state.consecutiveFailures >= FAILING_AFTER_FAILURES ? 'failing' : 'ok';
}
