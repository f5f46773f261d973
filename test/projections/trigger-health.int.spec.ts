import { definition } from '../../src/domain/occurrence/occurrence.fixtures.js';
import { occurrenceViews } from '../../src/projections/index.js';
import { schedulesProjection } from '../../src/projections/scheduler/schedules.projection.js';
import { triggerHealthProjection } from '../../src/projections/trigger-health/trigger-health.projection.js';
import {
  getTriggerHealth,
  healthWithAuth,
  listTriggerHealth,
} from '../../src/projections/trigger-health/trigger-health.queries.js';
import { pollsProjection } from '../../src/projections/poll/polls.projection.js';
import { type CandidateItem, FAILING_AFTER_FAILURES, pollDecider } from '../../src/domain/poll/poll.js';
import type { PollEvent } from '../../src/domain/poll/poll-events.js';
import { pollFailure } from '../../src/domain/poll/poll-page.js';
import { missionStream, pollStream } from '../../src/domain/shared/ids.js';
import type { PollBinding } from '../../src/domain/trigger/trigger-blocks.js';
import {
  admittedEvent,
  appendExecutionEvent,
  appendOccurrence,
  appendTrigger,
  blockedEvent,
  conflictEvent,
  occurrence,
  scheduleDefinition,
  suppressedEvent,
  triggerDeleted,
  triggerRevised,
} from './fixtures.js';
import { crashingRunner, type DbKind, openHarness, type ProjectionHarness, replayAll } from './harness.js';

/** Each Trigger's health as the list route gives it, once the single-Trigger route is seen to agree. */
async function healthOfEach(h: ProjectionHarness): Promise<Record<string, string>> {
  const { items } = await listTriggerHealth(h.sql, 'acme', { limit: 100 });
  const single = await Promise.all(items.map((row) => getTriggerHealth(h.sql, 'acme', row.triggerId)));
  expect(single.map((row) => row?.health)).toEqual(items.map((row) => row.health));
  return Object.fromEntries(items.map((row) => [row.triggerId, row.health]));
}

const at = (minute: number, second = 0) =>
  `2026-03-01T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.000Z`;
const h1 = occurrence({ triggerId: 't-hook', key: 'h1', observedAt: at(0) });
const h2 = occurrence({ triggerId: 't-hook', key: 'h2', observedAt: at(5) });
const h3 = occurrence({ triggerId: 't-hook', key: 'h3', observedAt: at(3) });
const h4 = occurrence({ triggerId: 't-hook', key: 'h4', observedAt: at(10) });
const g1 = occurrence({ triggerId: 't-guard', key: 'g1', observedAt: at(1) });
const g2 = occurrence({ triggerId: 't-guard', key: 'g2', observedAt: at(0, 30) });
const s1 = occurrence({ triggerId: 't-sched', kind: 'schedule', key: '2026-03-01T10:30:00.000Z', observedAt: at(30) });
const foreign = occurrence({ tenant: 'globex', triggerId: 't-hook', key: 'h1', observedAt: at(0) });
const budget = { windowStart: '2026-03-01T10:00:00.000Z', consumed: 10, limit: 10 };

describe.each<DbKind>(['postgres', 'pglite'])('OP-1 trigger-health projection (%s)', (kind) => {
  let h: ProjectionHarness;

  beforeAll(async () => {
    h = await openHarness(kind, [occurrenceViews, schedulesProjection]);
    const { store } = h;
    await appendTrigger(store, 'acme', 't-hook', [
      triggerRevised('acme', 't-hook', 1),
      triggerRevised('acme', 't-hook', 2, definition({ missionId: 'm-2' })),
    ]);
    await appendTrigger(store, 'acme', 't-guard', [triggerRevised('acme', 't-guard', 1)]);
    await appendTrigger(store, 'acme', 't-sched', [triggerRevised('acme', 't-sched', 1, scheduleDefinition())]);
    await appendTrigger(store, 'acme', 't-off', [
      triggerRevised('acme', 't-off', 1),
      triggerRevised('acme', 't-off', 2, definition({ enabled: false })),
    ]);
    await appendTrigger(store, 'acme', 't-del', [
      triggerRevised('acme', 't-del', 1),
      triggerDeleted('acme', 't-del', 2),
    ]);
    await appendTrigger(store, 'globex', 't-hook', [triggerRevised('globex', 't-hook', 1)]);
    await appendOccurrence(store, h1, admittedEvent(h1, 'e-1', at(0, 2)));
    await appendOccurrence(store, h2, admittedEvent(h2, 'e-2', at(5, 1)), conflictEvent(h2, 'digest-z', at(6)));
    // h4 is the newest by observedAt although h3 is folded after it
    await appendOccurrence(store, h4, blockedEvent(h4, 'budget_exhausted', budget));
    await appendOccurrence(store, h3, blockedEvent(h3, 'budget_exhausted', budget));
    await appendOccurrence(
      store,
      g1,
      blockedEvent(g1, 'guard_fault', { pointer: '/lane', problem: 'queue key is not a string, number or boolean' }),
    );
    // Older than g1, so g1 stays the last Occurrence; counted apart from the blocks (BA-2).
    await appendOccurrence(store, g2, suppressedEvent(g2, 'guard_false', { clause: '/guard', pointer: '/a' }));
    await appendOccurrence(store, s1, admittedEvent(s1, 'e-s1', at(30, 1)));
    await appendOccurrence(store, foreign);
    // e-2 is claimed; e-s1 was claimed and completed (and a replayed-looking second claim moves nothing).
    const owner = { tenant: 'acme', missionId: 'm-2', triggerId: 't-hook', generation: 1, at: at(7) };
    await appendExecutionEvent(store, 'acme', {
      type: 'ExecutionClaimed',
      data: { ...owner, executionId: 'e-2', fence: 1, consumerId: 'w' },
    });
    const sched = { ...owner, triggerId: 't-sched', executionId: 'e-s1' };
    await appendExecutionEvent(store, 'acme', {
      type: 'ExecutionClaimed',
      data: { ...sched, fence: 1, consumerId: 'w' },
    });
    await appendExecutionEvent(store, 'acme', {
      type: 'ExecutionCompleted',
      data: { ...sched, fence: 1, outcome: 'succeeded', receipt: null },
    });
    await appendExecutionEvent(store, 'acme', {
      type: 'ExecutionClaimed',
      data: { ...sched, fence: 2, consumerId: 'w' },
    });
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('folds definitions and decisions into the operator health row (OP-1)', async () => {
    const { items } = await listTriggerHealth(h.sql, 'acme', { limit: 100 });
    expect(items.map((row) => row.triggerId)).toEqual(['t-del', 't-guard', 't-hook', 't-off', 't-sched']);
    expect(items.find((row) => row.triggerId === 't-hook')).toEqual({
      triggerId: 't-hook',
      revision: 2,
      type: 'webhook',
      missionId: 'm-2',
      enabled: true,
      deleted: false,
      health: 'ok',
      nextFireAt: null,
      lastFireAt: at(5, 1),
      lastOccurrence: {
        occurrenceId: h4.occurrenceId,
        status: 'blocked',
        reason: 'budget_exhausted',
        observedAt: at(10),
      },
      counts: {
        observed: 4,
        admitted: 2,
        blocked: { budget_exhausted: 2 },
        suppressed: {},
        batched: 0,
        coalesced: {},
        subscribed: 0,
        duplicate: 0,
      },
      executions: { pending: 1, claimed: 1, retrying: 0, dead: 0 },
      tzdataDrift: false,
      recovery: [],
    });
  });

  it('derives health: disabled when disabled or deleted, degraded when the last decision was a machinery fault', async () => {
    const { items } = await listTriggerHealth(h.sql, 'acme', { limit: 100 });
    const byId = Object.fromEntries(items.map((row) => [row.triggerId, row]));
    expect(byId['t-off']).toMatchObject({ revision: 2, enabled: false, health: 'disabled' });
    expect(byId['t-del']).toMatchObject({
      revision: 2,
      deleted: true,
      enabled: false,
      health: 'disabled',
      counts: { observed: 0, admitted: 0, blocked: {} },
    });
    expect(byId['t-guard']).toMatchObject({
      health: 'degraded',
      lastOccurrence: { status: 'blocked', reason: 'guard_fault' },
      counts: { observed: 2, blocked: { guard_fault: 1 }, suppressed: { guard_false: 1 } },
    });
    expect(byId['t-sched']).toMatchObject({
      health: 'ok',
      type: 'schedule',
      lastFireAt: at(30, 1),
      lastOccurrence: { status: 'admitted', reason: null },
    });
    // OP-1: its one execution was claimed and completed; the claim after completion moved nothing.
    expect(byId['t-sched']!.executions).toEqual({ pending: 0, claimed: 0, retrying: 0, dead: 0 });
  });

  it('adds the newest Occurrences and, for schedules, the pinned engine and tz data', async () => {
    const hook = await getTriggerHealth(h.sql, 'acme', 't-hook');
    expect(hook?.recentOccurrences.map((o) => o.occurrenceId)).toEqual([h4, h2, h3, h1].map((o) => o.occurrenceId));
    expect(hook).not.toHaveProperty('schedule');
    const sched = await getTriggerHealth(h.sql, 'acme', 't-sched');
    // not materialized yet: the boundary is the activation time and the next fire 02:30 Berlin next day
    expect(sched).toMatchObject({
      nextFireAt: '2026-03-02T01:30:00.000Z',
      schedule: {
        engine: 'cron@1',
        tzdataVersion: '2025b',
        boundary: '2026-03-01T09:00:00.000Z',
        skipped: [],
        held: [],
      },
      recentOccurrences: [{ occurrenceId: s1.occurrenceId, executionId: 'e-s1' }],
    });
    expect(await getTriggerHealth(h.sql, 'acme', 'never')).toBeNull();
  });

  it('keeps tenants apart and pages by triggerId', async () => {
    expect((await listTriggerHealth(h.sql, 'globex', { limit: 100 })).items).toEqual([
      expect.objectContaining({ triggerId: 't-hook', revision: 1, counts: expect.objectContaining({ observed: 1 }) }),
    ]);
    const first = await listTriggerHealth(h.sql, 'acme', { limit: 2 });
    const second = await listTriggerHealth(h.sql, 'acme', { limit: 2, cursor: first.nextCursor! });
    const third = await listTriggerHealth(h.sql, 'acme', { limit: 2, cursor: second.nextCursor! });
    expect([first, second, third].flatMap((p) => p.items.map((row) => row.triggerId))).toEqual([
      't-del',
      't-guard',
      't-hook',
      't-off',
      't-sched',
    ]);
    expect(third.nextCursor).toBeNull();
  });

  describe('OP-3 replay safety', () => {
    it('applying every event a second time (a replayed batch) counts nothing twice', async () => {
      const before = await h.dump(triggerHealthProjection);
      await replayAll(h, occurrenceViews);
      expect(await h.dump(triggerHealthProjection)).toEqual(before);
    });

    it('a crash mid-batch rolls the batch back, and resuming yields identical rows', async () => {
      const before = await h.dump(triggerHealthProjection);
      await expect(crashingRunner(h, occurrenceViews, 8).rebuild()).rejects.toThrow('simulated crash');
      expect(await h.dump(triggerHealthProjection)).not.toEqual(before);
      await h.catchUp();
      expect(await h.dump(triggerHealthProjection)).toEqual(before);
    });

    it('rebuild from position 0 yields identical rows', async () => {
      const before = await h.dump(triggerHealthProjection);
      expect(before.rm_trigger_health).toHaveLength(6);
      await h.runners[0]!.rebuild();
      expect(await h.dump(triggerHealthProjection)).toEqual(before);
    });
  });
});

const pollBlockOf = (url: string): PollBinding => ({
  connector: 'http-json@1',
  url,
  everySeconds: 60,
  itemsPointer: '/items',
  idPointer: '/id',
  cursorParam: 'cursor',
  nextCursorPointer: '/next',
  onInvalidItem: 'quarantine',
  timeoutSeconds: 10,
  maxResponseBytes: 1_048_576,
  schema: { required: [] },
});

/** OP-1 (audit F #6): a poll Trigger whose polls keep failing is `failing`, wherever its row is read and after a rebuild. */
describe.each<DbKind>(['postgres', 'pglite'])('OP-1 poll failures in the health row (%s)', (kind) => {
  let h: ProjectionHarness;
  const poll = pollBlockOf('https://feed.test/items');

  /** `count` failed polls in a row, decided by the poll decider as the poller records them. */
  async function failPolls(triggerId: string, count: number): Promise<void> {
    let state = pollDecider.initialState;
    for (let i = 0; i < count; i++) {
      const events = pollDecider.decide(
        {
          type: 'RecordPoll',
          tenant: 'acme',
          triggerId,
          life: 1,
          triggerRevision: 1,
          url: poll.url,
          at: at(i),
          basedOnSeq: state.seq,
          onInvalidItem: 'quarantine',
          outcome: { ok: false, failure: pollFailure('http_status', 'the upstream answered 404') },
        },
        state,
      ) as PollEvent[];
      await h.store.append(
        pollStream('acme', triggerId),
        events.map((e) => ({ ...e, metadata: { tenant: 'acme', actor: 'svc-test', correlationId: 'c-1' } })),
        'any',
      );
      state = events.reduce(pollDecider.evolve, state);
    }
  }

  beforeAll(async () => {
    h = await openHarness(kind, [occurrenceViews, pollsProjection]);
    for (const triggerId of ['p-blip', 'p-fail', 'p-fault'])
      await appendTrigger(h.store, 'acme', triggerId, [
        triggerRevised('acme', triggerId, 1, definition({ type: 'poll', source: null, poll })),
      ]);
    await failPolls('p-blip', FAILING_AFTER_FAILURES - 1);
    await failPolls('p-fail', FAILING_AFTER_FAILURES);
    // degraded by its last decision (a machinery fault), then failing polls: the worse one shows
    const fault = occurrence({ triggerId: 'p-fault', key: 'f1', observedAt: at(0) });
    await appendOccurrence(h.store, fault, blockedEvent(fault, 'guard_fault', { pointer: '/x', problem: 'broken' }));
    await failPolls('p-fault', FAILING_AFTER_FAILURES + 4);
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  const healthByTrigger = () => healthOfEach(h);

  it(`OP-1 ${FAILING_AFTER_FAILURES} failed polls in a row make a poll Trigger failing (fewer: ok); failing outranks degraded`, async () => {
    expect(await healthByTrigger()).toEqual({ 'p-blip': 'ok', 'p-fail': 'failing', 'p-fault': 'failing' });
  });

  it('OP-1 OP-3 a rebuild of the read models gives the same health', async () => {
    const before = await healthByTrigger();
    for (const runner of h.runners) await runner.rebuild();
    expect(await healthByTrigger()).toEqual(before);
  });
});

/** OP-1 PO-2: poll items seen again count in `counts.duplicate`, once per disposition, whatever is folded again. */
describe.each<DbKind>(['postgres', 'pglite'])('OP-1 PO-2 poll duplicates in the health row (%s)', (kind) => {
  let h: ProjectionHarness;
  const poll = pollBlockOf('https://feed.test/dups');
  const candidate = (index: number, itemId: string, recordedDigest: string | null): CandidateItem => ({
    index,
    itemId,
    problem: null,
    occurrenceId: `occ-${itemId}`,
    observed: recordedDigest !== null,
    digest: `d-${itemId}`,
    recordedDigest,
  });

  beforeAll(async () => {
    h = await openHarness(kind, [occurrenceViews, pollsProjection]);
    await appendTrigger(h.store, 'acme', 'p-dup', [
      triggerRevised('acme', 'p-dup', 1, definition({ type: 'poll', source: null, poll })),
    ]);
    // two new items; both again and one new; one again with another payload (a payload_conflict, no duplicate)
    const pages = [
      [candidate(0, 'a', null), candidate(1, 'b', null)],
      [candidate(0, 'a', 'd-a'), candidate(1, 'b', 'd-b'), candidate(2, 'c', null)],
      [candidate(0, 'a', 'd-other')],
    ];
    let state = pollDecider.initialState;
    for (const [i, items] of pages.entries()) {
      const events = pollDecider.decide(
        {
          type: 'RecordPoll',
          tenant: 'acme',
          triggerId: 'p-dup',
          life: 1,
          triggerRevision: 1,
          url: poll.url,
          at: at(i),
          basedOnSeq: state.seq,
          onInvalidItem: 'quarantine',
          outcome: { ok: true, nextCursor: null, items },
        },
        state,
      ) as PollEvent[];
      await h.store.append(
        pollStream('acme', 'p-dup'),
        events.map((e) => ({ ...e, metadata: { tenant: 'acme', actor: 'svc-test', correlationId: 'c-1' } })),
        'any',
      );
      state = events.reduce(pollDecider.evolve, state);
    }
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  const duplicates = async () => {
    const { items } = await listTriggerHealth(h.sql, 'acme', { limit: 100 });
    const single = await getTriggerHealth(h.sql, 'acme', 'p-dup');
    expect(single?.counts.duplicate).toBe(items[0]?.counts.duplicate);
    return single?.counts.duplicate;
  };

  it('OP-1 counts each duplicate disposition once, never a payload_conflict; a replay and a rebuild count the same', async () => {
    expect(await duplicates()).toBe(2);
    await replayAll(h, pollsProjection);
    expect(await duplicates()).toBe(2);
    for (const runner of h.runners) await runner.rebuild();
    expect(await duplicates()).toBe(2);
  });
});

describe('OP-1 health of a Trigger whose parts disagree', () => {
  it('OP-1 a failed authentication since the last success makes the row failing, never less than it was', () => {
    const failed = { lastResult: 'failed' };
    expect(healthWithAuth('ok', failed)).toBe('failing');
    expect(healthWithAuth('degraded', failed)).toBe('failing');
    expect(healthWithAuth('held', failed)).toBe('held');
    expect(healthWithAuth('disabled', failed)).toBe('disabled');
    expect(healthWithAuth('ok', { lastResult: 'verified' })).toBe('ok');
    expect(healthWithAuth('degraded', { lastResult: 'unverified' })).toBe('degraded');
    expect(healthWithAuth('ok', null)).toBe('ok');
  });
});

describe.each<DbKind>(['postgres', 'pglite'])(
  "OP-1 AD-2 a Trigger's health follows its Mission's state (%s)",
  (kind) => {
    let h: ProjectionHarness;
    const mission = (missionId: string, revision: number, state: string) => ({
      type: 'MissionRevised',
      data: { tenant: 'acme', missionId, revision, state, grants: {}, reason: 'r', actor: 'a', at: at(0) },
      metadata: { tenant: 'acme', actor: 'a', correlationId: 'c-1' },
    });

    beforeAll(async () => {
      h = await openHarness(kind, [occurrenceViews]);
      const states = { 'm-run': 'active', 'm-pause': 'paused', 'm-end': 'cancelled', 'm-gone': 'revoked' };
      for (const [missionId, state] of Object.entries(states)) {
        const stream = missionStream('acme', missionId);
        await h.store.append(stream, [mission(missionId, 1, 'active')], 'no_stream');
        if (state !== 'active') await h.store.append(stream, [mission(missionId, 2, state)], 0);
        await appendTrigger(h.store, 'acme', `t-${missionId}`, [
          triggerRevised('acme', `t-${missionId}`, 1, definition({ missionId })),
        ]);
      }
      await h.catchUp();
    });
    afterAll(async () => {
      await h?.close();
    });

    const healthByTrigger = () => healthOfEach(h);

    it('AD-2 paused: held; cancelled or revoked: disabled; active: as the Trigger is — and a rebuild agrees', async () => {
      const expected = { 't-m-run': 'ok', 't-m-pause': 'held', 't-m-end': 'disabled', 't-m-gone': 'disabled' };
      expect(await healthByTrigger()).toEqual(expected);
      for (const runner of h.runners) await runner.rebuild();
      expect(await healthByTrigger()).toEqual(expected);
    });
  },
);
