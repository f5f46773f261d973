import { defaultDelivery } from '../trigger/trigger-blocks.js';
import { budgetWindowStart } from '../admission/budget.js';
import { IllegalStateError, ValidationError } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import type {
  DeliveryConflictRecorded,
  OccurrenceAdmitted,
  OccurrenceBlocked,
  OccurrenceObserved,
  OccurrenceSuppressed,
} from './occurrence-events.js';
import { classifyDelivery, MAX_RECORDED_CONFLICTS, occurrenceDecider } from './occurrence.js';
import { admit, manualObserved, mission, NOW, observe, observed, OBSERVED_AT, trigger } from './occurrence.fixtures.js';

const spec = deciderSpec(occurrenceDecider);
const occurrence = observed();
const wasObserved: OccurrenceObserved = { type: 'OccurrenceObserved', data: occurrence };
const conflict = (digest: string): DeliveryConflictRecorded => ({
  type: 'DeliveryConflictRecorded',
  data: { occurrenceId: occurrence.occurrenceId, conflictingDigest: digest, at: OBSERVED_AT },
});
const admitted: OccurrenceAdmitted = {
  type: 'OccurrenceAdmitted',
  data: {
    occurrenceId: occurrence.occurrenceId,
    executionId: 'e-1',
    firedAt: NOW,
    decidedAt: NOW,
    request: {
      executionId: 'e-1',
      tenant: 'acme',
      missionId: 'm-1',
      triggerId: 't-1',
      triggerRevision: 2,
      occurrenceId: occurrence.occurrenceId,
      input: occurrence.input,
      resourceRefs: ['repo:acme/api'],
      lane: 'trigger:t-1',
      scheduledAt: null,
      firedAt: NOW,
      limits: { maxConcurrent: 1, maxExecutionsPerHour: 10 },
      slotTakenAt: 'claim',
      delivery: defaultDelivery(),
    },
  },
};
const blocked = (
  reason: OccurrenceBlocked['data']['reason'],
  evidence: Record<string, unknown>,
): OccurrenceBlocked => ({
  type: 'OccurrenceBlocked',
  data: { occurrenceId: occurrence.occurrenceId, reason, evidence, decidedAt: NOW },
});

const manualSpec = (manual: ReturnType<typeof manualObserved>) => {
  const result = spec
    .given([{ type: 'OccurrenceObserved', data: manual }])
    .when(admit({}, manual.occurrenceId))
    .result();
  if (!Array.isArray(result)) throw new Error(result.code);
  return result;
};

describe('Occurrence', () => {
  describe('OC-3 the first delivery of an identity is observed', () => {
    it('records the whole evidence', () => spec.given().when(observe()).then([wasObserved]));
    it('refuses a hash that does not match the identity (a handler bug)', () =>
      spec
        .given()
        .when(observe({ ...occurrence, dedupeHash: '0'.repeat(64) }))
        .thenThrows(ValidationError));
    it('refuses an identity of another Trigger', () =>
      spec
        .given()
        .when(observe({ ...occurrence, triggerId: 't-2' }))
        .thenThrows(ValidationError));
  });

  describe('OC-3/OC-4 a later delivery with the same identity', () => {
    it('is a duplicate when the payload digest is the same: nothing is appended', () => {
      spec.given([wasObserved]).when(observe()).then([]);
      expect(classifyDelivery(spec.given([wasObserved]).when(observe()).thenState(), 'digest-a')).toBe('duplicate');
    });
    it('is a payload_conflict when the digest differs: recorded, nothing starts', () => {
      spec
        .given([wasObserved])
        .when(observe({ ...occurrence, payloadDigest: 'digest-b' }))
        .then([conflict('digest-b')]);
      expect(classifyDelivery(spec.given([wasObserved]).when(observe()).thenState(), 'digest-b')).toBe(
        'payload_conflict',
      );
    });
    it('records each conflicting payload once', () =>
      spec
        .given([wasObserved, conflict('digest-b')])
        .when(observe({ ...occurrence, payloadDigest: 'digest-b' }))
        .then([]));
    it(`records at most ${MAX_RECORDED_CONFLICTS} conflicts per occurrence`, () => {
      const recorded = Array.from({ length: MAX_RECORDED_CONFLICTS }, (_, i) => conflict(`c-${i}`));
      spec
        .given([wasObserved, ...recorded.slice(1)])
        .when(observe({ ...occurrence, payloadDigest: 'c-0' }))
        .then([recorded[0]!]);
      spec
        .given([wasObserved, ...recorded])
        .when(observe({ ...occurrence, payloadDigest: 'one-more' }))
        .then([]);
    });
    it('still records conflicts after the decision', () =>
      spec
        .given([wasObserved, admitted])
        .when(observe({ ...occurrence, payloadDigest: 'digest-b' }))
        .then([conflict('digest-b')]));
    it('classifies a delivery for an absent stream as new', () =>
      expect(classifyDelivery({ status: 'absent' }, 'x')).toBe('new'));
  });

  describe('AD-1 admission happens once', () => {
    it('admits with the execution request in the same event (EX-1)', () =>
      spec.given([wasObserved]).when(admit()).then([admitted]));
    it("EX-4/EX-5 copies the admitting Trigger revision's delivery policy into the request", () => {
      const delivery = { ...defaultDelivery(), maxAttempts: 2, maxRuntimeSeconds: 90, budgetUnits: 7 };
      spec
        .given([wasObserved])
        .when(admit({ trigger: trigger({}, { delivery }) }))
        .then([{ ...admitted, data: { ...admitted.data, request: { ...admitted.data.request, delivery } } }]);
    });
    it('a second admission returns []', () => {
      spec.given([wasObserved, admitted]).when(admit()).then([]);
      spec
        .given([wasObserved, blocked('trigger_disabled', {})])
        .when(admit())
        .then([]);
    });
    it('is impossible before observation', () => spec.given().when(admit()).thenThrows(IllegalStateError));
    it('is impossible for another occurrence than the stream holds', () =>
      spec.given([wasObserved]).when(admit({}, 'other')).thenThrows(IllegalStateError));
    it('refuses budget facts of another window', () =>
      spec
        .given([wasObserved])
        .when({ ...admit(), now: '2026-03-01T11:00:00.000Z' })
        .thenThrows(IllegalStateError));
    it('folds the decision into state', () =>
      expect(spec.given([wasObserved]).when(admit()).thenState()).toMatchObject({
        status: 'decided',
        decision: 'admitted',
        executionId: 'e-1',
        reason: null,
      }));
  });

  describe('AD-2 a stale occurrence never wakes a cancelled Mission', () => {
    it('blocks with mission_cancelled and requests no execution', () =>
      spec
        .given([wasObserved])
        .when(admit({ mission: mission('cancelled') }))
        .then([blocked('mission_cancelled', { missionId: 'm-1', missionState: 'cancelled', missionRevision: 3 })]));
    it('blocks a Trigger disabled after observation', () =>
      spec
        .given([wasObserved])
        .when(admit({ trigger: trigger({ enabled: false }) }))
        .then([blocked('trigger_disabled', { triggerId: 't-1', currentRevision: 2 })]));
    it('never rebinds itself to a newer revision', () =>
      spec
        .given([wasObserved])
        .when(admit({ trigger: trigger({ revision: 3 }) }))
        .then([blocked('revision_superseded', { triggerRevision: 2, currentRevision: 3 })]));
  });

  describe('BA-2 a guard that is false', () => {
    const closedOnly = trigger({}, { guard: { pointer: '/action', equals: 'closed' } });
    const suppressed: OccurrenceSuppressed = {
      type: 'OccurrenceSuppressed',
      data: {
        occurrenceId: occurrence.occurrenceId,
        reason: 'guard_false',
        evidence: { triggerRevision: 2, clause: '/guard', pointer: '/action', test: 'equals' },
        decidedAt: NOW,
      },
    };
    it('suppresses with guard_false and requests no execution', () =>
      spec
        .given([wasObserved])
        .when(admit({ trigger: closedOnly }))
        .then([suppressed]));
    it('is the decision: a later admission returns [] even once the guard would pass', () =>
      spec.given([wasObserved, suppressed]).when(admit()).then([]));
    it('folds into a decided state without an execution', () =>
      expect(spec.given([wasObserved, suppressed]).when(admit()).thenState()).toMatchObject({
        status: 'decided',
        decision: 'suppressed',
        reason: 'guard_false',
        executionId: null,
      }));
  });

  describe('SC-4 scheduled occurrences', () => {
    const at = '2026-03-01T10:15:00.000Z';
    const scheduled = { ...observed(), kind: 'schedule' as const, scheduledAt: at };
    const wasScheduled: OccurrenceObserved = { type: 'OccurrenceObserved', data: scheduled };
    it('records scheduledAt and firedAt on the request', () =>
      spec
        .given([wasScheduled])
        .when(admit())
        .then([
          {
            ...admitted,
            data: { ...admitted.data, request: { ...admitted.data.request, scheduledAt: at, firedAt: NOW } },
          },
        ]));
    it('is never admitted before its instant', () => {
      const early = { ...admit(), now: '2026-03-01T10:14:59.999Z' };
      spec
        .given([wasScheduled])
        .when({
          ...early,
          facts: { ...early.facts, budget: { ...early.facts.budget, windowStart: budgetWindowStart(early.now) } },
        })
        .thenThrows(IllegalStateError);
    });
  });

  it('manual occurrences (internal auth) are admitted; a new Idempotency-Key is a new occurrence', () => {
    const manual = manualObserved('key-1');
    const events = manualSpec(manual);
    expect(events.map((e) => e.type)).toEqual(['OccurrenceAdmitted']);
    expect(manual.occurrenceId).not.toBe(manualObserved('key-2').occurrenceId);
  });
});
