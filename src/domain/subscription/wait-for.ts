import { canonicalJson } from '../shared/canonical-json.js';
import type { Decider } from '../shared/decider.js';
import type { FieldError } from '../shared/result.js';
import { reject, type Rejection } from '../shared/result.js';
import {
  type SubscriptionEvent,
  subscriptionKey,
  type SubscriptionMatch,
  type SubscriptionRegisteredData,
  type SubscriptionTarget,
  type WaitingExecution,
} from './subscription-events.js';

/** Bounds what admission folds for one target: a waiting execution is a claim, and claims are few. */
export const MAX_ACTIVE_PER_TARGET = 1_000;
/** A deadline further out than this is no wait a claim should hold (SU-1 deadlines are short). */
export const MAX_DEADLINE_SECONDS = 7 * 24 * 3600;

/** One target's subscriptions: the active ones in registration order, and every key ever resolved. */
export interface WaitForState {
  active: ReadonlyArray<SubscriptionRegisteredData>;
  resolved: ReadonlyMap<string, 'matched' | 'timed_out'>;
}

export const initialWaitForState: WaitForState = { active: [], resolved: new Map() };

/** What the claim looks like now, read from the execution stream by the caller (EX-2 fence). */
export interface ClaimFacts {
  status: string;
  fence: number;
  execution: WaitingExecution;
}

export interface RegisterSubscription {
  type: 'RegisterSubscription';
  tenant: string;
  subscriptionId: string;
  target: SubscriptionTarget;
  match: SubscriptionMatch;
  deadline: string;
  fence: number;
  claim: ClaimFacts;
  now: string;
}

export interface TimeOutSubscription {
  type: 'TimeOutSubscription';
  executionId: string;
  subscriptionId: string;
  now: string;
}

export type WaitForCommand = RegisterSubscription | TimeOutSubscription;

export type WaitForRejection = 'fence_mismatch' | 'subscription_conflict' | 'subscription_limit' | 'BAD_REQUEST';

const keyOf = (s: Pick<SubscriptionRegisteredData, 'execution' | 'subscriptionId'>) =>
  subscriptionKey(s.execution.executionId, s.subscriptionId);

export function evolveWaitFor(state: WaitForState, event: SubscriptionEvent): WaitForState {
  switch (event.type) {
    case 'SubscriptionRegistered':
      return { ...state, active: [...state.active, event.data] };
    case 'SubscriptionMatched':
    case 'SubscriptionTimedOut': {
      const key = keyOf(event.data);
      const resolved = new Map(state.resolved);
      resolved.set(key, event.type === 'SubscriptionMatched' ? 'matched' : 'timed_out');
      return { active: state.active.filter((s) => keyOf(s) !== key), resolved };
    }
    default: {
      const _: never = event;
      return state;
    }
  }
}

/**
 * SU-1: only the current claim registers (a stale or ended claim is `fence_mismatch`, as every fenced execution
 * write); the deadline lies ahead by the database clock. The same id again with the same content changes
 * nothing (a retry), with other content it is `subscription_conflict`.
 */
export function registerSubscription(
  command: RegisterSubscription,
  state: WaitForState,
): SubscriptionEvent[] | Rejection<WaitForRejection> {
  const { claim, fence } = command;
  if (claim.status !== 'claimed') return reject('fence_mismatch', { detail: 'the execution is not claimed' });
  if (fence !== claim.fence) return reject('fence_mismatch', { detail: "the fence is not the current claim's" });
  const errors = deadlineErrors(command.deadline, command.now);
  if (errors.length > 0) return reject('BAD_REQUEST', { detail: errors[0]!.message, errors });
  const key = subscriptionKey(claim.execution.executionId, command.subscriptionId);
  const existing = state.active.find((s) => keyOf(s) === key);
  if (existing)
    return sameRegistration(existing, command)
      ? []
      : reject('subscription_conflict', { detail: 'this execution already registered this subscriptionId' });
  if (state.resolved.has(key))
    return reject('subscription_conflict', { detail: 'this execution already registered this subscriptionId' });
  if (state.active.length >= MAX_ACTIVE_PER_TARGET)
    return reject('subscription_limit', { detail: `at most ${MAX_ACTIVE_PER_TARGET} active subscriptions per target` });
  return [
    {
      type: 'SubscriptionRegistered',
      data: {
        tenant: command.tenant,
        subscriptionId: command.subscriptionId,
        target: command.target,
        match: command.match,
        deadline: instantOf(command.deadline) ?? command.deadline,
        fence,
        execution: claim.execution,
        registeredAt: command.now,
      },
    },
  ];
}

/**
 * The deadline as api.md writes times (UTC, milliseconds), or null when it names no real instant: `Date.parse`
 * rolls `02-30` over into March and reads `24:00`, so the calendar fields must survive the round trip.
 */
export function instantOf(deadline: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(deadline)) return null;
  const at = Date.parse(deadline);
  if (Number.isNaN(at)) return null;
  const iso = new Date(at).toISOString();
  return iso.slice(0, 19) === deadline.slice(0, 19) ? iso : null;
}

function deadlineErrors(deadline: string, now: string): FieldError[] {
  const at = Date.parse(deadline);
  if (instantOf(deadline) === null)
    return [{ pointer: '/deadline', message: 'deadline must be an RFC 3339 UTC instant (…Z)' }];
  const from = Date.parse(now);
  if (at <= from) return [{ pointer: '/deadline', message: 'deadline must lie ahead (database clock)' }];
  if (at - from > MAX_DEADLINE_SECONDS * 1000)
    return [{ pointer: '/deadline', message: `deadline must be at most ${MAX_DEADLINE_SECONDS} seconds ahead` }];
  return [];
}

/** Canonical: a registration read back from the store may hold its members in another order (jsonb). */
const sameRegistration = (s: SubscriptionRegisteredData, c: RegisterSubscription): boolean =>
  canonicalJson([s.target, s.match, instantOf(s.deadline) ?? s.deadline]) ===
  canonicalJson([c.target, c.match, instantOf(c.deadline) ?? c.deadline]);

/** SU-1: at its deadline (database clock) an unresolved subscription times out; otherwise nothing happens. */
export function timeOutSubscription(command: TimeOutSubscription, state: WaitForState): SubscriptionEvent[] {
  const key = subscriptionKey(command.executionId, command.subscriptionId);
  const active = state.active.find((s) => keyOf(s) === key);
  if (!active || Date.parse(active.deadline) > Date.parse(command.now)) return [];
  return [
    {
      type: 'SubscriptionTimedOut',
      data: {
        tenant: active.tenant,
        subscriptionId: active.subscriptionId,
        execution: active.execution,
        deadline: active.deadline,
        timedOutAt: command.now,
      },
    },
  ];
}

/** A match, decided by admission in acceptance order (see subscription-match.ts and matchInOrder). */
export function matchedEvent(
  subscription: SubscriptionRegisteredData,
  occurrence: { occurrenceId: string; triggerId: string },
  now: string,
): SubscriptionEvent {
  return {
    type: 'SubscriptionMatched',
    data: {
      tenant: subscription.tenant,
      subscriptionId: subscription.subscriptionId,
      execution: subscription.execution,
      occurrenceId: occurrence.occurrenceId,
      occurrenceTriggerId: occurrence.triggerId,
      matchedAt: now,
    },
  };
}

export function decideWaitFor(
  command: WaitForCommand,
  state: WaitForState,
): SubscriptionEvent[] | Rejection<WaitForRejection> {
  return command.type === 'RegisterSubscription'
    ? registerSubscription(command, state)
    : timeOutSubscription(command, state);
}

export const waitForDecider: Decider<WaitForState, SubscriptionEvent, WaitForCommand> = {
  initialState: initialWaitForState,
  evolve: evolveWaitFor,
  decide: decideWaitFor,
};
