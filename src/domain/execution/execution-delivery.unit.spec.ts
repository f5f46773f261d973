import {
  type ExecutionEvent,
  evolveExecution,
  executionStatusOf,
  isOverdue,
  overlapChange,
  requestedExecution,
  slotChange,
} from './index.js';
import {
  AT,
  LATER,
  request,
  spec,
  fold,
  life,
  claimed,
  completed,
  settled,
  claim,
  complete,
  ERROR,
  failRetryable,
  advance,
  recover,
  play,
} from './execution.fixtures.js';

describe('EX-4 retries with backoff and dead letters', () => {
  it('a failed retryable completion schedules the next attempt after initialSeconds', () =>
    spec
      .given([claimed()])
      .when(failRetryable(1))
      .then([
        {
          type: 'ExecutionCompleted',
          data: { ...life(), fence: 1, outcome: 'failed', retryable: true, error: ERROR, receipt: null },
        },
        { type: 'ExecutionRetryScheduled', data: { ...life(), nextAttemptAt: LATER(2) } },
      ]));
  it('a failure that is not retryable is final: status failed, no retry', () => {
    const state = fold([claimed(), completed('failed')]);
    expect(executionStatusOf(state)).toBe('failed');
    spec
      .given([claimed(), completed('failed')])
      .when(advance(LATER(1000)))
      .then([]);
  });
  it('the retry waits: early timers append nothing, a claim meanwhile is not_pending', () => {
    const waiting = play([claim(), failRetryable(1)]);
    spec
      .given(waiting)
      .when(advance(LATER(1.999)))
      .then([]);
    spec.given(waiting).when(claim('c-2')).then('not_pending');
  });
  it('once the backoff is over it is redelivered as a new generation, attempt 2, claimable with a new fence', () => {
    const waiting = play([claim(), failRetryable(1)]);
    spec
      .given(waiting)
      .when(advance(LATER(2)))
      .then([
        {
          type: 'ExecutionRedelivered',
          data: { ...life(2, 2, LATER(2)), why: 'retry', lane: 'trigger:t-1', claimBy: LATER(12) },
        },
      ]);
    const redelivered = play([claim(), failRetryable(1), advance(LATER(2))]);
    spec
      .given(redelivered)
      .when(claim('c-2'))
      .then([claimed('c-2', 2, 2, 2)]);
  });
  it('delays grow by the multiplier and stop at maxSeconds', () => {
    const second = play([claim(), failRetryable(1), advance(LATER(2)), claim(), failRetryable(2, LATER(3))]);
    expect(second.at(-1)).toMatchObject({ type: 'ExecutionRetryScheduled', data: { nextAttemptAt: LATER(3 + 5) } });
  });
  it('the old holder repeating its failed completion after the redelivery changes nothing; another fence is refused', () => {
    const redelivered = play([claim(), failRetryable(1), advance(LATER(2))]);
    spec.given(redelivered).when(failRetryable(1)).then([]);
    spec.given(redelivered).when(failRetryable(2)).then('fence_mismatch');
  });
  it('the last allowed attempt failing dead-letters it with reason failed and the attempts made', () => {
    const third = play([
      claim(),
      failRetryable(1),
      advance(LATER(2)),
      claim(),
      failRetryable(2, LATER(3)),
      advance(LATER(10)),
      claim(),
    ]);
    const result = spec
      .given(third)
      .when(failRetryable(3, LATER(11)))
      .result() as ExecutionEvent[];
    expect(result.map((e) => e.type)).toEqual(['ExecutionCompleted', 'ExecutionDeadLettered']);
    expect(result[1]!.data).toMatchObject({ reason: 'failed', attempts: 3, lastError: ERROR, generation: 3 });
    const dead = fold([...third, ...result]);
    expect(executionStatusOf(dead)).toBe('dead_lettered');
    spec
      .given([...third, ...result])
      .when(claim('c-9'))
      .then('execution_dead_lettered');
  });
  it('a delivery not claimed within claimWithinSeconds is delivered again (same generation, longer window)', () => {
    spec
      .given([])
      .when(advance(LATER(9.999)))
      .then([]);
    spec
      .given([])
      .when(advance(LATER(10)))
      .then([
        {
          type: 'ExecutionRedelivered',
          data: { ...life(1, 2, LATER(10)), why: 'unclaimed', lane: 'trigger:t-1', claimBy: LATER(10 + 10 + 2) },
        },
      ]);
  });
  it('after maxAttempts unclaimed deliveries it is dead-lettered unclaimed, without a slot to give back', () => {
    const events = play([advance(LATER(10)), advance(LATER(22))]);
    const result = spec
      .given(events)
      .when(advance(LATER(100)))
      .result() as ExecutionEvent[];
    expect(result).toEqual([
      {
        type: 'ExecutionDeadLettered',
        data: { ...life(1, 3, LATER(100)), reason: 'unclaimed', attempts: 3, lastError: null },
      },
    ]);
    const before = fold(events);
    expect(slotChange(before, fold([...events, ...result]))).toBeNull();
  });
  it('a claimed execution is never taken back by a timer, however late', () =>
    spec
      .given([claimed()])
      .when(advance(LATER(1e6)))
      .then([]));
  it('EX-2 a completion of a dead letter with a stale fence is fence_mismatch; the fence that dead-lettered it is answered as its completion', () => {
    const deadFailed = play([
      claim(),
      failRetryable(1),
      advance(LATER(2)),
      claim(),
      failRetryable(2, LATER(3)),
      advance(LATER(10)),
      claim(),
      failRetryable(3, LATER(11)),
    ]);
    expect(executionStatusOf(fold(deadFailed))).toBe('dead_lettered');
    spec.given(deadFailed).when(failRetryable(1)).then('fence_mismatch');
    spec.given(deadFailed).when(complete(2)).then('fence_mismatch');
    spec.given(deadFailed).when(complete(4)).then('fence_mismatch');
    // The holder whose failure dead-lettered it repeats itself: nothing changes; another outcome is told who won.
    spec.given(deadFailed).when(failRetryable(3)).then([]);
    spec.given(deadFailed).when(complete(3)).then('execution_completed');
  });
  it('EX-2 a completion of an unclaimed dead letter is fence_mismatch: no fence was ever issued', () => {
    const deadUnclaimed = play([advance(LATER(10)), advance(LATER(22)), advance(LATER(100))]);
    expect(fold(deadUnclaimed)).toMatchObject({ status: 'dead_lettered', reason: 'unclaimed', fence: 0 });
    spec.given(deadUnclaimed).when(complete(1)).then('fence_mismatch');
    // A claim carries no fence: the dead letter itself is the reason it is refused.
    spec.given(deadUnclaimed).when(claim()).then('execution_dead_lettered');
  });
});

describe('EX-4 audited recovery', () => {
  const deadUnclaimed = () => play([advance(LATER(10)), advance(LATER(22)), advance(LATER(50))]);
  it('of an unclaimed dead letter keeps the generation (no attempt ran) and starts a new delivery budget', () => {
    const events = deadUnclaimed();
    const result = spec.given(events).when(recover()).result() as ExecutionEvent[];
    expect(result).toEqual([
      {
        type: 'RecoveryRequested',
        data: {
          ...life(1, 4, LATER(100)),
          from: 'dead_lettered',
          actor: 'ops@acme',
          reason: 'upstream fixed',
          idempotencyKey: 'k-1',
          lane: 'trigger:t-1',
          claimBy: LATER(110),
          maxConcurrent: 1,
        },
      },
    ]);
    const recovered = fold([...events, ...result]);
    expect(recovered).toMatchObject({ status: 'pending', generation: 1, attempt: 4, budgetFrom: 4 });
    // A fresh budget: the next unclaimed window redelivers instead of dead-lettering at once.
    const next = spec
      .given([...events, ...result])
      .when(advance(LATER(110)))
      .result() as ExecutionEvent[];
    expect(next[0]!.type).toBe('ExecutionRedelivered');
  });
  it('of a final failure starts a new generation (the attempt ended) and a later claim gets a higher fence', () => {
    const events = [claimed(), completed('failed')];
    const result = spec.given(events).when(recover()).result() as ExecutionEvent[];
    expect(result[0]!.data).toMatchObject({ from: 'failed', generation: 2, attempt: 2 });
    spec
      .given([...events, ...result])
      .when(claim('c-2'))
      .then([claimed('c-2', 2, 2, 2)]);
  });
  it('of a noncommitted settlement: a new generation after a claim, the same one when nobody claimed', () => {
    expect(
      (
        spec
          .given([claimed(), settled(1)])
          .when(recover())
          .result() as ExecutionEvent[]
      )[0]!.data,
    ).toMatchObject({ from: 'noncommitted', generation: 2 });
    expect(
      (
        spec
          .given([settled(null)])
          .when(recover())
          .result() as ExecutionEvent[]
      )[0]!.data,
    ).toMatchObject({
      from: 'noncommitted',
      generation: 1,
    });
  });
  it('a claimed execution without a settlement is settlement_required (its side effect may have happened)', () =>
    spec.given([claimed()]).when(recover()).then('settlement_required'));
  it('a pending, retrying or succeeded execution is not recovered', () => {
    spec.given([]).when(recover()).then('not_recoverable');
    spec
      .given(play([claim(), failRetryable(1)]))
      .when(recover())
      .then('not_recoverable');
    spec.given([claimed(), completed()]).when(recover()).then('execution_completed');
  });
  it('fresh authority refusing it is recovery_refused with the AD-3 reason', () =>
    spec
      .given(deadUnclaimed())
      .when(recover('mission_cancelled'))
      .thenRejects('recovery_refused', { reason: 'mission_cancelled' }));
  it('the superseded holder cannot complete the recovered execution', () => {
    const events = [claimed(), completed('failed')];
    const recovered = [...events, ...(spec.given(events).when(recover()).result() as ExecutionEvent[])];
    spec.given(recovered).when(complete(1, 'succeeded')).then('execution_completed');
  });
});

describe('AD-2 slots and BA-3 overlap follow the attempt', () => {
  const queued = requestedExecution(request, AT);
  it('a claim takes the slot; an opt-in block request took it at admission and takes none', () => {
    expect(slotChange(queued, fold([claimed()]))).toEqual({ take: true });
    const blocking = requestedExecution({ ...request, slotTakenAt: 'admission' }, AT);
    expect(slotChange(blocking, evolveExecution(blocking, claimed()))).toBeNull();
  });
  it('completion, a retry wait, a dead letter and a settlement after a claim give it back', () => {
    const held = fold([claimed()]);
    expect(slotChange(held, fold([claimed(), completed()]))).toEqual({ release: 'completed' });
    expect(slotChange(held, fold(play([claim(), failRetryable(1)])))).toEqual({ release: 'retrying' });
    expect(slotChange(held, fold([claimed(), settled(1)]))).toEqual({ release: 'noncommitted' });
    expect(slotChange(queued, fold([settled(null)]))).toBeNull();
  });
  it('the overlap marker ends when terminal, not while a retry waits, and a recovery takes it back', () => {
    const skipping = requestedExecution({ ...request, overlap: 'skip' }, AT);
    const foldSkipping = (events: ExecutionEvent[]) => events.reduce(evolveExecution, skipping);
    const held = foldSkipping([claimed()]);
    expect(overlapChange(held, foldSkipping([claimed(), completed()]))).toEqual({ end: 'completed' });
    expect(overlapChange(held, foldSkipping(play([claim(), failRetryable(1)])))).toBeNull();
    const dead = foldSkipping([claimed(), completed('failed')]);
    const recovered = evolveExecution(dead, {
      type: 'RecoveryRequested',
      data: {
        ...life(2, 2),
        from: 'failed',
        actor: 'a',
        reason: 'r',
        idempotencyKey: 'k',
        lane: 'trigger:t-1',
        claimBy: LATER(10),
        maxConcurrent: 1,
      },
    });
    expect(overlapChange(dead, recovered)).toEqual({ start: true });
    expect(overlapChange(queued, fold([claimed(), completed()]))).toBeNull();
  });
});

describe('EX-5 limits', () => {
  it('a claim older than maxRuntimeSeconds is overdue; unclaimed or unlimited ones never are', () => {
    const held = fold([claimed()]);
    expect(isOverdue(held, LATER(30))).toBe(false);
    expect(isOverdue(held, LATER(31))).toBe(true);
    expect(isOverdue(queued(), LATER(1000))).toBe(false);
    const unlimited = requestedExecution(
      { ...request, delivery: { ...request.delivery!, maxRuntimeSeconds: null } },
      AT,
    );
    expect(isOverdue(evolveExecution(unlimited, claimed()), LATER(1e6))).toBe(false);
  });
  const queued = () => requestedExecution(request, AT);
});
