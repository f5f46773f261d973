import { IllegalStateError } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import {
  executionDeciderFor,
  type ExecutionEvent,
  executionIdFor,
  evolveExecution,
  initialExecutionState,
  occurrenceIdOf,
  releasesSlot,
  requestedExecution,
  settlementOf,
  takesSlotOnClaim,
} from './execution.js';

const AT = '2026-03-01T10:00:00.000Z';
const request: ExecutionRequest = {
  executionId: 'e-1',
  tenant: 'acme',
  missionId: 'm-1',
  triggerId: 't-1',
  triggerRevision: 2,
  occurrenceId: 'o-1',
  input: { n: 1 },
  resourceRefs: [],
  lane: 'trigger:t-1',
  scheduledAt: null,
  firedAt: AT,
  limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
};
const spec = deciderSpec(executionDeciderFor(request));
const unknown = deciderSpec({ ...executionDeciderFor(request), initialState: initialExecutionState });
const fold = (events: ExecutionEvent[]) => events.reduce(evolveExecution, requestedExecution(request));
const owner = { tenant: 'acme', missionId: 'm-1', triggerId: 't-1' };
const claimed = (consumerId = 'c-1', fence = 1): ExecutionEvent => ({
  type: 'ExecutionClaimed',
  data: { ...owner, executionId: 'e-1', generation: 1, fence, consumerId, at: AT },
});
const completed = (outcome: 'succeeded' | 'failed' = 'succeeded', fence = 1): ExecutionEvent => ({
  type: 'ExecutionCompleted',
  data: { ...owner, executionId: 'e-1', generation: 1, fence, outcome, receipt: { ref: 'r-1' }, at: AT },
});
const settled = (fence: number | null = 1): ExecutionEvent => ({
  type: 'ExecutionSettled',
  data: { ...owner, executionId: 'e-1', generation: 1, settlementId: 's-1', decision: 'noncommitted', fence, at: AT },
});
const claim = (consumerId = 'c-1') => ({ type: 'ClaimExecution' as const, executionId: 'e-1', consumerId, at: AT });
const complete = (fence: number, outcome: 'succeeded' | 'failed' = 'succeeded') => ({
  type: 'CompleteExecution' as const,
  executionId: 'e-1',
  fence,
  outcome,
  receipt: { ref: 'r-1' },
  at: AT,
});
const settle = (settlementId = 's-1') => ({
  type: 'SettleExecution' as const,
  executionId: 'e-1',
  settlementId,
  at: AT,
});

describe('Execution (EX-1..EX-3)', () => {
  describe('EX-1 request', () => {
    it('is named after its Occurrence, so the id leads back to the request; foreign ids lead nowhere', () => {
      const occurrenceId = 'a'.repeat(64);
      expect(occurrenceIdOf(executionIdFor(occurrenceId))).toBe(occurrenceId);
      expect(['x-' + 'A'.repeat(64), 'x-abc', occurrenceId, `x-${occurrenceId}/..`].map(occurrenceIdOf)).toEqual([
        null,
        null,
        null,
        null,
      ]);
    });
    it('an execution nobody requested cannot be claimed, completed or settled', () => {
      unknown.given().when(claim()).then('not_found');
      unknown.given().when(complete(1)).then('not_found');
      unknown.given().when(settle()).then('not_found');
    });
  });

  describe('EX-2 claim is a compare-and-set with a fence', () => {
    it('a requested execution is claimed with fence 1', () => spec.given([]).when(claim()).then([claimed()]));
    it('a second claim, by anyone, is already_claimed (a claim never expires on a timer)', () => {
      spec
        .given([claimed('c-1')])
        .when(claim('c-2'))
        .then('already_claimed');
      spec
        .given([claimed('c-1')])
        .when(claim('c-1'))
        .then('already_claimed');
    });
    it('completion needs the current fence', () => {
      spec.given([claimed()]).when(complete(1)).then([completed()]);
      spec.given([claimed()]).when(complete(2)).then('fence_mismatch');
      spec.given([]).when(complete(1)).then('fence_mismatch');
    });
    it('the holder repeating its completion changes nothing; another outcome or fence is refused', () => {
      spec.given([claimed(), completed()]).when(complete(1)).then([]);
      spec.given([claimed(), completed()]).when(complete(1, 'failed')).then('execution_completed');
      spec.given([claimed(), completed()]).when(complete(7)).then('fence_mismatch');
    });
    it('a completed execution cannot be claimed again', () =>
      spec.given([claimed(), completed()]).when(claim('c-2')).then('execution_completed'));
  });

  describe('EX-3 settlement', () => {
    it('installs a noncommit tombstone over an uncertain claim', () =>
      spec
        .given([claimed()])
        .when(settle())
        .then([settled(1)]));
    it('installs it over a request nobody claimed (fence null)', () =>
      spec
        .given([])
        .when(settle())
        .then([settled(null)]));
    it('a completion arriving after the tombstone is execution_noncommitted, and so is a claim', () => {
      spec.given([claimed(), settled()]).when(complete(1)).then('execution_noncommitted');
      spec.given([claimed(), settled()]).when(claim('c-2')).then('execution_noncommitted');
    });
    it('a settlement losing the race to completion records nothing and answers committed with the receipt', () => {
      spec
        .given([claimed(), completed('failed')])
        .when(settle())
        .then([]);
      const state = fold([claimed(), completed('failed')]);
      expect(settlementOf(state)).toEqual({
        decision: 'committed',
        receipt: { fence: 1, outcome: 'failed', receipt: { ref: 'r-1' }, completedAt: AT },
      });
    });
    it('settling again answers the same decision and records nothing', () => {
      spec
        .given([settled(null)])
        .when(settle('s-2'))
        .then([]);
      expect(settlementOf(fold([settled(null)]))).toEqual({ decision: 'noncommitted' });
      expect(settlementOf(fold([claimed()]))).toBeNull();
    });
  });

  it('terminal transitions give the Mission slot back; others keep it', () => {
    expect([claimed(), completed(), settled()].map((e) => releasesSlot(e, request))).toEqual([
      null,
      'completed',
      'noncommitted',
    ]);
  });
  describe('AD-2 a queued execution holds a slot only from its claim', () => {
    const queued: ExecutionRequest = { ...request, slotTakenAt: 'claim' };
    it('the claim takes the slot; an opt-in block request took it at admission', () => {
      expect(takesSlotOnClaim(claimed(), queued)).toBe(true);
      expect(takesSlotOnClaim(claimed(), { ...request, slotTakenAt: 'admission' })).toBe(false);
      expect(takesSlotOnClaim(completed(), queued)).toBe(false);
    });
    it('completion or a settlement after a claim releases it; a settlement of an unclaimed one does not', () => {
      expect(releasesSlot(completed(), queued)).toBe('completed');
      expect(releasesSlot(settled(1), queued)).toBe('noncommitted');
      expect(releasesSlot(settled(null), queued)).toBeNull();
      expect(releasesSlot(settled(null), { ...request, slotTakenAt: 'admission' })).toBe('noncommitted');
    });
  });
  it('a history without a request is impossible', () => {
    expect(() => evolveExecution(initialExecutionState, claimed())).toThrow(IllegalStateError);
  });
});
