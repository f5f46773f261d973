import type { ExecutionRequest } from '../occurrence/occurrence-events.js';
import { wakeupFields, wakeupOf } from './wakeup.js';

const request: ExecutionRequest = {
  executionId: 'x-abc',
  tenant: 'acme',
  missionId: 'm-1',
  triggerId: 't-1',
  triggerRevision: 3,
  occurrenceId: 'abc',
  input: { secret: 'payload' },
  resourceRefs: ['repo:acme/app'],
  lane: 'lane-7',
  scheduledAt: null,
  firedAt: '2026-01-01T00:00:00Z',
  limits: { maxConcurrent: 2, maxExecutionsPerHour: 10 },
};
const admitted = {
  type: 'OccurrenceAdmitted',
  data: { occurrenceId: 'abc', executionId: 'x-abc', firedAt: request.firedAt, request, decidedAt: request.firedAt },
};

describe('EX-1 wakeups from the log', () => {
  it('an admission is the first delivery of its execution request: generation 1, attempt 1', () =>
    expect(wakeupOf(admitted)).toEqual({
      executionId: 'x-abc',
      generation: 1,
      attempt: 1,
      tenant: 'acme',
      missionId: 'm-1',
      triggerId: 't-1',
      lane: 'lane-7',
    }));

  it('EX-4 a redelivery and a recovery wake consumers with their generation and attempt', () => {
    const later = {
      tenant: 'acme',
      missionId: 'm-1',
      triggerId: 't-1',
      executionId: 'x-abc',
      lane: 'lane-7',
      at: request.firedAt,
      claimBy: request.firedAt,
    };
    const redelivered = { type: 'ExecutionRedelivered', data: { ...later, generation: 2, attempt: 3, why: 'retry' } };
    expect(wakeupOf(redelivered)).toEqual({ ...wakeupOf(admitted), generation: 2, attempt: 3 });
    const recovered = {
      type: 'RecoveryRequested',
      data: { ...later, generation: 1, attempt: 6, from: 'dead_lettered' },
    };
    expect(wakeupOf(recovered)).toEqual({ ...wakeupOf(admitted), generation: 1, attempt: 6 });
  });

  it('other events wake nobody', () => {
    expect(wakeupOf({ type: 'OccurrenceBlocked', data: { occurrenceId: 'abc', reason: 'x' } })).toBeNull();
    expect(wakeupOf({ type: 'ExecutionClaimed', data: { executionId: 'x-abc' } })).toBeNull();
    expect(wakeupOf({ type: 'ExecutionRetryScheduled', data: { executionId: 'x-abc' } })).toBeNull();
  });

  it('the stream entry carries the fields in the order the spec lists them, as strings, never the input', () =>
    expect(wakeupFields(wakeupOf(admitted)!)).toEqual([
      'executionId',
      'x-abc',
      'generation',
      '1',
      'attempt',
      '1',
      'tenant',
      'acme',
      'missionId',
      'm-1',
      'triggerId',
      't-1',
      'lane',
      'lane-7',
    ]));
});
