import { IllegalStateError } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import { executionDecider, type ExecutionEvent, evolveExecution, initialExecutionState, releasesSlot, settlementOf } from './execution.js';

const spec = deciderSpec(executionDecider);
const AT = '2026-03-01T10:00:00.000Z';
const request: ExecutionRequest = {
  executionId: 'e-1', tenant: 'acme', missionId: 'm-1', triggerId: 't-1', triggerRevision: 2, occurrenceId: 'o-1', input: { n: 1 },
  resourceRefs: [], lane: 'trigger:t-1', scheduledAt: null, firedAt: AT, limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
};
const requested: ExecutionEvent = { type: 'ExecutionRequested', data: { executionId: 'e-1', generation: 1, request, at: AT } };
const owner = { tenant: 'acme', missionId: 'm-1', triggerId: 't-1' };
const claimed = (consumerId = 'c-1', fence = 1): ExecutionEvent => ({ type: 'ExecutionClaimed', data: { ...owner, executionId: 'e-1', generation: 1, fence, consumerId, at: AT } });
const completed = (outcome: 'succeeded' | 'failed' = 'succeeded', fence = 1): ExecutionEvent => ({
  type: 'ExecutionCompleted', data: { ...owner, executionId: 'e-1', generation: 1, fence, outcome, receipt: { ref: 'r-1' }, at: AT },
});
const settled = (fence: number | null = 1): ExecutionEvent => ({ type: 'ExecutionSettled', data: { ...owner, executionId: 'e-1', generation: 1, settlementId: 's-1', decision: 'noncommitted', fence, at: AT } });
const claim = (consumerId = 'c-1') => ({ type: 'ClaimExecution' as const, executionId: 'e-1', consumerId, at: AT });
const complete = (fence: number, outcome: 'succeeded' | 'failed' = 'succeeded') => ({ type: 'CompleteExecution' as const, executionId: 'e-1', fence, outcome, receipt: { ref: 'r-1' }, at: AT });
const settle = (settlementId = 's-1') => ({ type: 'SettleExecution' as const, executionId: 'e-1', settlementId, at: AT });

describe('Execution (EX-1..EX-3)', () => {
  describe('EX-1 request', () => {
    it('is written once; the same request again (an admission retry) adds nothing', () => {
      spec.given().when({ type: 'RequestExecution', request, at: AT }).then([requested]);
      spec.given([requested]).when({ type: 'RequestExecution', request, at: AT }).then([]);
    });
    it('an unknown execution cannot be claimed, completed or settled', () => {
      spec.given().when(claim()).then('not_found');
      spec.given().when(complete(1)).then('not_found');
      spec.given().when(settle()).then('not_found');
    });
  });

  describe('EX-2 claim is a compare-and-set with a fence', () => {
    it('a requested execution is claimed with fence 1', () => spec.given([requested]).when(claim()).then([claimed()]));
    it('a second claim, by anyone, is already_claimed (a claim never expires on a timer)', () => {
      spec.given([requested, claimed('c-1')]).when(claim('c-2')).then('already_claimed');
      spec.given([requested, claimed('c-1')]).when(claim('c-1')).then('already_claimed');
    });
    it('completion needs the current fence', () => {
      spec.given([requested, claimed()]).when(complete(1)).then([completed()]);
      spec.given([requested, claimed()]).when(complete(2)).then('fence_mismatch');
      spec.given([requested]).when(complete(1)).then('fence_mismatch');
    });
    it('the holder repeating its completion changes nothing; another outcome or fence is refused', () => {
      spec.given([requested, claimed(), completed()]).when(complete(1)).then([]);
      spec.given([requested, claimed(), completed()]).when(complete(1, 'failed')).then('execution_completed');
      spec.given([requested, claimed(), completed()]).when(complete(7)).then('fence_mismatch');
    });
    it('a completed execution cannot be claimed again', () => spec.given([requested, claimed(), completed()]).when(claim('c-2')).then('execution_completed'));
  });

  describe('EX-3 settlement', () => {
    it('installs a noncommit tombstone over an uncertain claim', () => spec.given([requested, claimed()]).when(settle()).then([settled(1)]));
    it('installs it over a request nobody claimed (fence null)', () => spec.given([requested]).when(settle()).then([settled(null)]));
    it('a completion arriving after the tombstone is execution_noncommitted, and so is a claim', () => {
      spec.given([requested, claimed(), settled()]).when(complete(1)).then('execution_noncommitted');
      spec.given([requested, claimed(), settled()]).when(claim('c-2')).then('execution_noncommitted');
    });
    it('a settlement losing the race to completion records nothing and answers committed with the receipt', () => {
      spec.given([requested, claimed(), completed('failed')]).when(settle()).then([]);
      const state = [requested, claimed(), completed('failed')].reduce(evolveExecution, initialExecutionState);
      expect(settlementOf(state)).toEqual({ decision: 'committed', receipt: { fence: 1, outcome: 'failed', receipt: { ref: 'r-1' }, completedAt: AT } });
    });
    it('settling again answers the same decision and records nothing', () => {
      spec.given([requested, settled(null)]).when(settle('s-2')).then([]);
      expect(settlementOf([requested, settled(null)].reduce(evolveExecution, initialExecutionState))).toEqual({ decision: 'noncommitted' });
      expect(settlementOf([requested, claimed()].reduce(evolveExecution, initialExecutionState))).toBeNull();
    });
  });

  it('terminal transitions give the Mission slot back; others keep it', () => {
    expect([requested, claimed(), completed(), settled()].map(releasesSlot)).toEqual([null, null, 'completed', 'noncommitted']);
  });
  it('a history that does not start with the request is impossible', () => {
    expect(() => evolveExecution(initialExecutionState, claimed())).toThrow(IllegalStateError);
  });
});
