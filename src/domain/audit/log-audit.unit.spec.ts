import { AT, request } from '../execution/execution.fixtures.js';
import type { RecordedEvent } from '../ports/event-store.js';
import { chainHash, eventContent } from '../shared/event-hash.js';
import { executionStream, missionStream } from '../shared/ids.js';
import { LogAuditor } from './log-audit.js';

/** A log written by hand, every event correctly chained unless a test breaks it. */
function logWriter() {
  const tips = new Map<string, { revision: number; hash: string }>();
  let position = 0;
  return (streamId: string, type: string, data: unknown): RecordedEvent => {
    const tip = tips.get(streamId);
    const content = {
      id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
      streamId,
      revision: tip ? tip.revision + 1 : 0,
      type,
      schemaVersion: 1,
      data,
      metadata: { tenant: 'acme' },
    };
    const prevHash = tip?.hash ?? null;
    const hash = chainHash(prevHash, AT, eventContent(content));
    tips.set(streamId, { revision: content.revision, hash });
    return { ...content, position, recordedAt: AT, hash, prevHash };
  };
}

const occurrenceId = 'a'.repeat(64);
const executionId = `x-${occurrenceId}`;
const occurrence = `occurrence-${occurrenceId}`;
const execution = executionStream(executionId);
const mission = missionStream('acme', 'm-1');
const owner = { tenant: 'acme', missionId: 'm-1', triggerId: 't-1', executionId, generation: 1, attempt: 1, at: AT };
const revised = (state: string, revision: number) => ({
  tenant: 'acme',
  missionId: 'm-1',
  revision,
  state,
  grants: {},
  reason: 'r',
  actor: 'a',
  at: AT,
});
const observed = { occurrenceId, tenant: 'acme', triggerId: 't-1', missionId: 'm-1', input: { big: 'payload' } };
const admitted = (id = executionId) => ({
  occurrenceId,
  executionId: id,
  firedAt: AT,
  decidedAt: AT,
  request: { ...request, executionId: id, occurrenceId },
});

function audit(events: RecordedEvent[]) {
  const auditor = new LogAuditor();
  events.forEach((event) => auditor.check(event));
  const summary = auditor.summary();
  return { ...summary, rules: summary.listed.map((v) => `${v.rule}@${v.position}`) };
}

describe('AU-2 log auditor', () => {
  it('passes a clean lifecycle: mission, observation, admission, claim, completion', () => {
    const write = logWriter();
    const report = audit([
      write(mission, 'MissionRevised', revised('active', 1)),
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(execution, 'ExecutionClaimed', { ...owner, fence: 1, consumerId: 'w' }),
      write(execution, 'ExecutionCompleted', { ...owner, fence: 1, outcome: 'succeeded', receipt: null }),
    ]);
    expect(report).toMatchObject({ events: 5, streams: 3, violations: 0, rules: [] });
  });

  it('AU-2 DD-5 accepts coalesced as an Occurrence’s one decision, folds the coalesce stream, and reports a second one', () => {
    const write = logWriter();
    const group = `coalesce-${'d'.repeat(64)}`;
    const held = { occurrenceId, groupStream: group, groupId: occurrenceId, closesAt: AT, at: AT };
    const open = { groupId: occurrenceId, openedAt: AT, closesAt: AT, openedRevision: 0, size: 1 };
    const member = { occurrenceId, streamId: occurrence, acceptedAt: AT };
    const report = audit([
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceHeldForCoalescing', held),
      write(group, 'CoalesceGroupOpened', {
        tenant: 'acme',
        groupId: occurrenceId,
        member,
        state: { open, closed: 0 },
      }),
      write(occurrence, 'OccurrenceCoalesced', {
        occurrenceId,
        reason: 'coalesced',
        evidence: { coalescedInto: 'b'.repeat(64), groupId: occurrenceId },
        decidedAt: AT,
      }),
      write(group, 'CoalesceGroupClosed', { tenant: 'acme', groupId: occurrenceId, state: { open: null, closed: 1 } }),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      // And the other way round: coalesced after an admission is a second decision too.
      write(`occurrence-${'e'.repeat(64)}`, 'OccurrenceObserved', observed),
      write(`occurrence-${'e'.repeat(64)}`, 'OccurrenceAdmitted', admitted()),
      write(`occurrence-${'e'.repeat(64)}`, 'OccurrenceCoalesced', {
        occurrenceId,
        reason: 'coalesced',
        evidence: { coalescedInto: occurrenceId, groupId: occurrenceId },
        decidedAt: AT,
      }),
    ]);
    expect(report.rules).toEqual(['second_decision@6', 'second_decision@9']);
    expect(report.listed[0]!.detail).toContain('already coalesced');
  });

  it('reports an admission decided while its Mission was cancelled, and one whose request names another execution', () => {
    const write = logWriter();
    const report = audit([
      write(mission, 'MissionRevised', revised('active', 1)),
      write(mission, 'MissionRevised', revised('cancelled', 2)),
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(`occurrence-${'b'.repeat(64)}`, 'OccurrenceAdmitted', admitted(`x-${'b'.repeat(64)}`)),
    ]);
    expect(report.rules).toEqual([
      'admitted_for_cancelled_mission@4',
      'decision_without_observation@5',
      'request_mismatch@5',
    ]);
    expect(report.listed[0]!.detail).toContain('cancelled (revision 2)');
  });

  it('reports a second request for one execution id, an unfenced completion and a claim of a completed execution', () => {
    const write = logWriter();
    const report = audit([
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(execution, 'ExecutionClaimed', { ...owner, fence: 1, consumerId: 'w' }),
      write(execution, 'ExecutionCompleted', { ...owner, fence: 2, outcome: 'succeeded', receipt: null }),
      write(execution, 'ExecutionClaimed', { ...owner, fence: 2, consumerId: 'w' }),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(`occurrence-${'c'.repeat(64)}`, 'OccurrenceObserved', observed),
      write(`occurrence-${'c'.repeat(64)}`, 'OccurrenceAdmitted', admitted()),
    ]);
    expect(report.rules).toEqual([
      'completion_not_fenced@4',
      'claim_not_fenced@5',
      'second_decision@6',
      'duplicate_request@8',
    ]);
    expect(report.byRule.claim_not_fenced).toEqual({ count: 1, firstPositions: [5] });
  });

  it('CA-2 passes fenced Operations and their correlation streams; reports an Operation outside the current claim', () => {
    const write = logWriter();
    const operation = (fence: number, operationId: string) => ({
      ...owner,
      fence,
      operationId,
      correlation: { sourceId: 's-1', key: operationId },
      occurrenceId,
      child: { parentId: operationId, depth: 1, ancestry: [] },
    });
    const report = audit([
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(execution, 'ExecutionClaimed', { ...owner, fence: 1, consumerId: 'w' }),
      write(execution, 'OperationRecorded', operation(1, 'op-1')),
      write('correlation-abc', 'CorrelationReserved', { tenant: 'acme', sourceId: 's-1', key: 'op-1' }),
      write(execution, 'OperationRecorded', operation(2, 'op-2')),
      write(execution, 'ExecutionCompleted', { ...owner, fence: 1, outcome: 'succeeded', receipt: null }),
      write(execution, 'OperationRecorded', operation(1, 'op-3')),
    ]);
    expect(report.rules).toEqual(['operation_not_fenced@6', 'operation_not_fenced@8']);
  });

  it('counts a suppression (BA-2, AD-4) as a decision: after an admission it is a second decision, and before one too', () => {
    const write = logWriter();
    const suppressed = (id: string) => ({
      occurrenceId: id,
      reason: 'guard_false',
      evidence: {},
      decidedAt: '2026-01-01T00:00:00.000Z',
    });
    const other = 'b'.repeat(64);
    const report = audit([
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(occurrence, 'OccurrenceSuppressed', suppressed(occurrenceId)),
      write(`occurrence-${other}`, 'OccurrenceObserved', { ...observed, occurrenceId: other }),
      write(`occurrence-${other}`, 'OccurrenceSuppressed', suppressed(other)),
      write(`occurrence-${other}`, 'OccurrenceSuppressed', suppressed(other)),
    ]);
    expect(report.rules).toEqual(['second_decision@3', 'second_decision@6']);
  });

  it('SU-1 counts a subscribed Occurrence as its one decision, delivered only to subscriptions registered before its acceptance', () => {
    const write = logWriter();
    const waitfor = 'waitfor-' + 'c'.repeat(64);
    const registration = (subscriptionId: string) => ({
      tenant: 'acme',
      subscriptionId,
      target: { kind: 'trigger', id: 't-1' },
      match: { fields: { '/a': 1 } },
      deadline: AT,
      fence: 1,
      execution: { executionId: 'x-w', generation: 1, attempt: 1, missionId: 'm', triggerId: 't-w', lane: 'l' },
      registeredAt: AT,
    });
    const subscribed = (id: string, subscriptionId: string) => ({
      occurrenceId: id,
      evidence: { subscriptions: [{ subscriptionId, executionId: 'x-w' }] },
      decidedAt: AT,
    });
    const other = 'b'.repeat(64);
    const report = audit([
      write(waitfor, 'SubscriptionRegistered', registration('early')),
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceSubscribed', subscribed(occurrenceId, 'early')),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(`occurrence-${other}`, 'OccurrenceObserved', { ...observed, occurrenceId: other }),
      write(waitfor, 'SubscriptionRegistered', registration('late')),
      write(`occurrence-${other}`, 'OccurrenceSubscribed', subscribed(other, 'late')),
    ]);
    expect(report.rules).toEqual(['second_decision@4', 'subscribed_out_of_order@7']);
  });

  it('reports an event the domain fold refuses as replay_failed', () => {
    const write = logWriter();
    const report = audit([
      write(occurrence, 'OccurrenceObserved', observed),
      write(occurrence, 'OccurrenceAdmitted', admitted()),
      write(execution, 'ExecutionClaimed', { ...owner, fence: 1, consumerId: 'w' }),
      write(execution, 'ExecutionNobodyKnows', { ...owner }),
    ]);
    expect(report.rules).toEqual([]);
    const auditor = new LogAuditor(() => {
      throw new Error('no upcaster for this version');
    });
    auditor.check(write('trigger-x', 'TriggerRevised', {}));
    expect(auditor.summary().listed.map((v) => v.rule)).toEqual(['replay_failed']);
  });

  it('reports an event moved to another position (the hash does not cover it): once, where the stream goes back', () => {
    const write = logWriter();
    const events = Array.from({ length: 4 }, () => write('budget-x', 'BudgetConsumed', { count: 1 }));
    // Revision 1 moved past revision 3 by an UPDATE of its position; log order is still the commit order.
    const moved = events.map((e) => (e.revision === 1 ? { ...e, position: 4000 } : e));
    const report = audit(moved);
    expect(report.rules).toEqual(['position_out_of_order@3']);
    expect(report.listed[0]).toMatchObject({
      revision: 2,
      detail: expect.stringContaining('position 4000, revision 1'),
    });
    expect(audit(events).rules).toEqual([]);
  });

  it('keeps counting past the listed violations, and seeded history is context, never reported', () => {
    const write = logWriter();
    const events = Array.from({ length: 5 }, () => write('budget-x', 'BudgetConsumed', { count: 1 }));
    const auditor = new LogAuditor(undefined, 2);
    auditor.seed(events[0]!);
    for (const event of events.slice(1)) auditor.check({ ...event, hash: 'f'.repeat(64) });
    const summary = auditor.summary();
    // Each forged hash breaks its own row and the next one's prev_hash.
    expect(summary).toMatchObject({ events: 4, streams: 1, violations: 7 });
    expect(summary.listed).toHaveLength(2);
    expect(summary.byRule.hash_mismatch).toEqual({ count: 4, firstPositions: [2, 3, 4, 5] });
  });
});
