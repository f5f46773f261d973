import { IllegalStateError } from '../shared/errors.js';
import { executionIdFor, evolveExecution, initialExecutionState, occurrenceIdOf, settlementOf } from './index.js';
import {
  AT,
  request,
  spec,
  unknown,
  fold,
  claimed,
  completed,
  settled,
  claim,
  complete,
  settle,
  play,
} from './execution.fixtures.js';

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
    it('a pending execution is claimed with fence 1', () => spec.given([]).when(claim()).then([claimed()]));
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
    it('the holder repeating its completion changes nothing; another outcome, receipt or fence is refused', () => {
      spec.given([claimed(), completed()]).when(complete(1)).then([]);
      spec
        .given([claimed(), completed()])
        .when({ ...complete(1), receipt: { other: true } })
        .then('execution_completed');
      spec.given([claimed(), completed()]).when(complete(1, 'failed')).then('execution_completed');
      spec.given([claimed(), completed()]).when(complete(7)).then('fence_mismatch');
    });
    it('a completed execution cannot be claimed again', () =>
      spec.given([claimed(), completed()]).when(claim('c-2')).then('execution_completed'));
    it.each(['mission_paused', 'mission_cancelled', 'mission_revoked'] as const)(
      'AD-2 a pending execution whose Mission refuses work now (%s) is claim_refused, with the reason',
      (refusal) => {
        spec
          .given([])
          .when({ ...claim(), refusal })
          .then('claim_refused');
        spec
          .given([])
          .when({ ...claim(), refusal: null })
          .then([claimed()]);
      },
    );
    it('AD-5 a pending execution behind an older one of its resource lane is lane_busy; its turn, it is claimed', () => {
      spec
        .given([])
        .when({ ...claim(), laneAhead: 'x-older' })
        .then('lane_busy');
      spec
        .given([])
        .when({ ...claim(), laneAhead: null })
        .then([claimed()]);
    });
    it('what the execution itself says comes first: a claimed one is already_claimed whatever its Mission or lane', () =>
      spec
        .given([claimed('c-1')])
        .when({ ...claim('c-2'), refusal: 'mission_cancelled', laneAhead: 'x-older' })
        .then('already_claimed'));
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
    it('EX-3 a settlement losing the race to completion records nothing and answers committed with the receipt the consumer completed with', () => {
      spec
        .given([claimed(), completed('failed')])
        .when(settle())
        .then([]);
      const state = fold([claimed(), completed('failed')]);
      expect(settlementOf(state)).toEqual({
        decision: 'committed',
        receipt: { ref: 'r-1' },
        completion: { fence: 1, outcome: 'failed', completedAt: AT },
      });
      const withoutReceipt = fold(play([claim(), { ...complete(1), receipt: null }]));
      expect(settlementOf(withoutReceipt)).toMatchObject({ decision: 'committed', receipt: null });
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

  it('a history without a request is impossible', () => {
    expect(() => evolveExecution(initialExecutionState, claimed())).toThrow(IllegalStateError);
  });
});
