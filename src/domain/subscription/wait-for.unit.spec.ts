import type { ObservedOccurrence } from '../occurrence/occurrence-events.js';
import { endsSubscriptions, matchInOrder } from './match-in-order.js';
import { subscriptionKey, type SubscriptionRegisteredData } from './subscription-events.js';
import { validateMatch } from './subscription-match.js';
import { evolveWaitFor, initialWaitForState, registerSubscription, timeOutSubscription } from './wait-for.js';

const execution = { executionId: 'x-1', generation: 1, attempt: 1, missionId: 'm', triggerId: 't', lane: 'l' };
const claim = { status: 'claimed', fence: 3, execution };
const register = (extra: Record<string, unknown> = {}) =>
  registerSubscription(
    {
      type: 'RegisterSubscription',
      tenant: 'a',
      subscriptionId: 's-1',
      target: { kind: 'source', id: 'gh' },
      match: { correlationKey: 'k' },
      deadline: '2026-01-01T00:01:00.000Z',
      fence: 3,
      claim,
      now: '2026-01-01T00:00:00.000Z',
      ...extra,
    },
    initialWaitForState,
  );

const registered: SubscriptionRegisteredData = {
  tenant: 'a',
  subscriptionId: 's-1',
  target: { kind: 'source', id: 'gh' },
  match: { fields: { '/pr': 7 } },
  deadline: '2026-01-01T00:01:00.000Z',
  fence: 3,
  execution,
  registeredAt: '2026-01-01T00:00:00.000Z',
};
const active = evolveWaitFor(initialWaitForState, { type: 'SubscriptionRegistered', data: registered });

const occurrence = (id: string, input: unknown, observedAt = '2026-01-01T00:00:30.000Z'): ObservedOccurrence =>
  ({
    occurrenceId: id,
    tenant: 'a',
    triggerId: 't-hook',
    kind: 'webhook',
    auth: { state: 'verified', sourceId: 'gh', keyId: 'k1' },
    input,
    observedAt,
  }) as ObservedOccurrence;

describe('SU-1 wait-for decider', () => {
  it('SU-1 only the current claim registers: a stale fence or an ended claim is fence_mismatch', () => {
    expect(register()).toHaveLength(1);
    expect(register({ fence: 2 })).toMatchObject({ code: 'fence_mismatch' });
    expect(register({ claim: { ...claim, status: 'completed' } })).toMatchObject({ code: 'fence_mismatch' });
  });

  it('SU-1 the deadline lies ahead by the database clock, at most seven days', () => {
    expect(register({ deadline: '2025-12-31T23:59:59.000Z' })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(register({ deadline: '2026-02-01T00:00:00.000Z' })).toMatchObject({ code: 'BAD_REQUEST' });
    expect(register({ deadline: 'soon' })).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('SU-1 a deadline times out once, and only after it passed', () => {
    const early = { type: 'TimeOutSubscription', executionId: 'x-1', subscriptionId: 's-1' } as const;
    expect(timeOutSubscription({ ...early, now: '2026-01-01T00:00:59.999Z' }, active)).toEqual([]);
    const [timedOut] = timeOutSubscription({ ...early, now: '2026-01-01T00:01:00.000Z' }, active);
    expect(timedOut!.type).toBe('SubscriptionTimedOut');
    expect(
      timeOutSubscription({ ...early, now: '2026-01-01T00:02:00.000Z' }, evolveWaitFor(active, timedOut!)),
    ).toEqual([]);
  });

  it('SU-1 matching follows acceptance order: one-shot, only registrations before the acceptance, only before the deadline', () => {
    const key = subscriptionKey('x-1', 's-1');
    const targets = new Map([['w', active]]);
    const accepted = (id: string, input: unknown, before: boolean, observedAt?: string) => ({
      occurrence: occurrence(id, input, observedAt),
      correlationPointer: null,
      targets: ['w'],
      registeredBefore: new Set(before ? [key] : []),
    });
    const notYet = matchInOrder([accepted('o-0', { pr: 7 }, false), accepted('o-1', { pr: 7 }, true)], targets, 'now');
    expect([...notYet.decisions.keys()]).toEqual(['o-1']);
    const oneShot = matchInOrder([accepted('o-1', { pr: 7 }, true), accepted('o-2', { pr: 7 }, true)], targets, 'now');
    expect([...oneShot.decisions.keys()]).toEqual(['o-1']);
    expect(oneShot.events.get('w')).toHaveLength(1);
    const late = matchInOrder([accepted('o-3', { pr: 7 }, true, '2026-01-01T00:01:00.000Z')], targets, 'now');
    expect(late.decisions.size).toBe(0);
    const other = matchInOrder([accepted('o-4', { pr: '7' }, true)], targets, 'now');
    expect(other.decisions.size).toBe(0);
  });

  it('SU-1 CA-2 a correlation key matches only from a verified delivery', () => {
    const keyed = evolveWaitFor(initialWaitForState, {
      type: 'SubscriptionRegistered',
      data: { ...registered, match: { correlationKey: 'req-9' } },
    });
    const run = (state: 'verified' | 'unverified') =>
      matchInOrder(
        [
          {
            occurrence: { ...occurrence('o', { c: 'req-9' }), auth: { state, sourceId: 'gh' } },
            correlationPointer: '/c',
            targets: ['w'],
            registeredBefore: new Set([subscriptionKey('x-1', 's-1')]),
          },
        ],
        new Map([['w', keyed]]),
        'now',
      ).decisions.size;
    expect(run('verified')).toBe(1);
    expect(run('unverified')).toBe(0);
  });

  it('SU-1 a match is bounded and never empty', () => {
    expect(validateMatch({}).errors.map((e) => e.pointer)).toEqual(['/match']);
    expect(validateMatch({ fields: { '/a~1b': 1 } }).errors).toEqual([]);
    expect(validateMatch({ fields: { '/a': [1] } }).errors.map((e) => e.pointer)).toEqual(['/match/fields/~1a']);
    expect(validateMatch('x').errors.map((e) => e.pointer)).toEqual(['/match']);
  });
});

describe('SU-1 an execution that ended ends its subscriptions (endsSubscriptions)', () => {
  it.each([
    [['ExecutionClaimed'], false],
    [['ExecutionClaimed', 'OperationRecorded'], false],
    [['ExecutionClaimed', 'ExecutionCompleted'], true],
    [['ExecutionClaimed', 'ExecutionCompleted', 'OperationRecorded'], true],
    [['ExecutionClaimed', 'ExecutionSettled'], true],
    [['ExecutionDeadLettered'], true],
    // a failed retryable attempt: the next one waits on the same subscription
    [['ExecutionClaimed', 'ExecutionCompleted', 'ExecutionRetryScheduled'], false],
    [['ExecutionClaimed', 'ExecutionCompleted', 'ExecutionRetryScheduled', 'ExecutionRedelivered'], false],
    // recovered after the end: it runs again
    [['ExecutionClaimed', 'ExecutionCompleted', 'RecoveryRequested'], false],
    [[], false],
  ])('given the execution stream %j, it ended: %s', (types, ended) => {
    expect(endsSubscriptions(types)).toBe(ended);
  });
});
