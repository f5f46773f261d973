import type { DomainEvent } from '../shared/decider.js';
import type { PollFailure } from './poll-page.js';

/** PO-4 `onInvalidItem: "hold"`: the item the poll stopped before, until an operator sets the cursor. */
export interface PollHeld {
  itemId: string | null;
  index: number;
  reason: string;
  at: string;
}

/**
 * PO-4: an item quarantined, recorded once: the same item (id and digest) returned by a later poll is quarantined in
 * that poll's page again but not recorded again. `digest` is absent from records kept before it was, and null for an
 * item out of bounds, never hashed: neither is recognized.
 */
export type QuarantinedItem = PollHeld & { digest?: string | null };

export type PollResult = 'ok' | 'failed' | 'held';

/**
 * A poll Trigger's poll state (PO-1). Every poll event carries the whole state after it, so a poller reads the
 * stream's last event only; `seq` counts the events, and a fetch decided on `seq` n is recorded only at n.
 */
export interface PollState {
  seq: number;
  /** Opaque, never part of an Occurrence's input (PO-1). */
  cursor: string | null;
  /** The url the cursor belongs to: a revision polling another url starts without one (a cursor per binding). */
  binding: string | null;
  lastPollAt: string | null;
  lastResult: PollResult | null;
  /** Failed polls in a row of the binding last polled (`polled`): another binding starts with none (see failuresFor). */
  consecutiveFailures: number;
  lastError: PollFailure | null;
  held: PollHeld | null;
  /** The newest KEPT_QUARANTINED quarantined items, oldest first; every one stays in its PollCompleted. */
  quarantined: QuarantinedItem[];
  /**
   * The url the last poll fetched, failed or not (`binding` moves only with a cursor). Absent from states recorded
   * before it was kept: read through `lastPolledBinding`.
   */
  polled?: string | null;
  /**
   * The bearer secret polls send (`poll.auth`): which stored row, never its value (decision 7). Absent from
   * states recorded before secrets existed; read through `secretOf`.
   */
  secret?: PollSecretRef | null;
  /**
   * The life of the Trigger this state belongs to: its `createdRevision`. A Trigger deleted and created again is a
   * new life and starts from a fresh state (see `pollStateFor`). Absent from states recorded before lives were told
   * apart: read through `lifeOf`, the first life.
   */
  life?: number;
}

/** Names the sealed row beside the log; a new id per set, so a rotation never rewrites a row a poll may read. */
export interface PollSecretRef {
  secretId: string;
  setAt: string;
  /**
   * The origin (scheme, host, port) of the URL the Trigger named when the secret was set: the only one it is sent
   * to. Absent from secrets set before secrets were bound to an origin.
   */
  origin?: string;
}

export const secretOf = (state: Pick<PollState, 'secret'>): PollSecretRef | null => state.secret ?? null;

/** A URL's origin as the WHATWG URL parser gives it (`http://host:port`; the default port left out). */
export const originOf = (url: string): string => new URL(url).origin;

/**
 * Whether a secret may go to `url`: only to the origin it was set for. Whoever may revise the Trigger may not read
 * its secret, so a revision naming another host must not carry the secret there; it is set again for the new one.
 */
export const secretGoesTo = (secret: PollSecretRef, url: string): boolean =>
  secret.origin === undefined || secret.origin === originOf(url);

export const lifeOf = (state: Pick<PollState, 'life'>): number => state.life ?? 1;

/** States recorded before `polled` was kept: their last completed poll's url is the best known. */
export const lastPolledBinding = (state: Pick<PollState, 'polled' | 'binding'>): string | null =>
  state.polled ?? state.binding;

export const KEPT_QUARANTINED = 20;

export const initialPollState: PollState = {
  seq: 0,
  cursor: null,
  binding: null,
  lastPollAt: null,
  lastResult: null,
  consecutiveFailures: 0,
  lastError: null,
  held: null,
  quarantined: [],
  polled: null,
  secret: null,
};

/**
 * The poll state of the Trigger life created at `createdRevision`: the stream's state when it belongs to that
 * life, else the state a new poll Trigger starts with (no cursor, hold, failures, quarantined items or secret).
 * `seq` goes on counting the stream's events, so a fetch based on the old life's state records nothing.
 */
export function pollStateFor(state: PollState, createdRevision: number): PollState {
  if (lifeOf(state) === createdRevision) return state;
  return { ...initialPollState, seq: state.seq, life: createdRevision };
}

/**
 * A repeated item is a `duplicate` disposition, never a second Occurrence (PO-2); repeated with another payload, a
 * `payload_conflict` (OC-4), recorded on the Occurrence `occurrenceId` as a webhook's is, and it starts nothing.
 */
export type ItemDisposition =
  | { index: number; itemId: string; disposition: 'accepted' | 'duplicate' | 'payload_conflict'; occurrenceId: string }
  | { index: number; itemId: string | null; disposition: 'quarantined'; reason: string };

interface PollEventBase {
  tenant: string;
  triggerId: string;
  at: string;
  state: PollState;
}

/**
 * PO-3: appended in one append with the Occurrence of every accepted item; the cursor moves from→to only with
 * the disposition of every item before it. A hold stops before the invalid item, the cursor unmoved.
 */
export type PollCompleted = DomainEvent<
  'PollCompleted',
  PollEventBase & {
    triggerRevision: number;
    cursor: { from: string | null; to: string | null };
    items: ItemDisposition[];
    held: PollHeld | null;
  }
>;

/** PO-4: nothing starts and the cursor stays; the next poll backs off. */
export type PollFailed = DomainEvent<
  'PollFailed',
  PollEventBase & { triggerRevision: number; cursor: string | null; failure: PollFailure }
>;

/** PO-1: an operator's cursor, for later polls only; releases a hold. */
export type PollCursorSet = DomainEvent<
  'PollCursorSet',
  PollEventBase & { actor: string; reason: string; from: string | null; to: string | null; released: PollHeld | null }
>;

/** A bearer secret was set or replaced: the log says when and by whom, never what (decision 7). */
export type PollSecretSet = DomainEvent<
  'PollSecretSet',
  PollEventBase & { actor: string; secretId: string; replaced: string | null }
>;

export type PollEvent = PollCompleted | PollFailed | PollCursorSet | PollSecretSet;

export const POLL_EVENT_TYPES: readonly PollEvent['type'][] = [
  'PollCompleted',
  'PollFailed',
  'PollCursorSet',
  'PollSecretSet',
];
