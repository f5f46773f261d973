import { getOccurrence, listOccurrences } from '../../src/projections/occurrences/occurrences.queries.js';
import { occurrencesProjection } from '../../src/projections/occurrences/occurrences.projection.js';
import { InvalidCursor } from '../../src/projections/occurrences/cursor.js';
import {
  admittedEvent,
  appendOccurrence,
  appendTrigger,
  blockedEvent,
  conflictEvent,
  occurrence,
  triggerRevised,
} from './fixtures.js';
import { crashingRunner, type DbKind, openHarness, type ProjectionHarness, replayAll } from './harness.js';

const hook = occurrence({ key: 'd-1', observedAt: '2026-03-01T10:00:00.000Z' });
const refused = occurrence({ key: 'd-2', observedAt: '2026-03-01T10:01:00.000Z' });
const pending = occurrence({
  key: '2026-03-01T10:02:00.000Z',
  kind: 'schedule',
  triggerId: 't-sched',
  observedAt: '2026-03-01T10:02:00.250Z',
});
const conflicted = occurrence({ key: 'd-4', observedAt: '2026-03-01T10:03:00.000Z' });
const foreign = occurrence({ tenant: 'globex', key: 'd-1', observedAt: '2026-03-01T10:04:00.000Z' });
const scopeEvidence = {
  violation: 'resource_scope',
  resourceRefs: ['repo:other/x'],
  triggerScopes: ['repo:acme/api'],
  missionScopes: ['repo:acme/*'],
};

describe.each<DbKind>(['postgres', 'pglite'])('OP-2 occurrences projection (%s)', (kind) => {
  let h: ProjectionHarness;

  beforeAll(async () => {
    h = await openHarness(kind, [occurrencesProjection]);
    // given a realistic log: definitions (not folded here) and four Occurrences in every state
    await appendTrigger(h.store, 'acme', 't-1', [triggerRevised('acme', 't-1', 1)]);
    await appendOccurrence(h.store, hook, admittedEvent(hook, 'e-1', '2026-03-01T10:00:02.000Z'));
    await appendOccurrence(
      h.store,
      refused,
      blockedEvent(refused, 'scope_violation', scopeEvidence, '2026-03-01T10:01:01.000Z'),
    );
    await appendOccurrence(h.store, pending);
    await appendOccurrence(
      h.store,
      conflicted,
      conflictEvent(conflicted, 'digest-x', '2026-03-01T10:05:00.000Z'),
      conflictEvent(conflicted, 'digest-y', '2026-03-01T10:06:00.000Z'),
    );
    await appendOccurrence(h.store, foreign);
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('folds an admitted Occurrence into the explorer detail shape (OP-2), without the input body (OC-5)', async () => {
    const row = await getOccurrence(h.sql, 'acme', hook.occurrenceId);
    expect(row).toEqual({
      occurrenceId: hook.occurrenceId,
      triggerId: 't-1',
      triggerRevision: 1,
      missionId: 'm-1',
      kind: 'webhook',
      status: 'admitted',
      reason: null,
      auth: { state: 'verified', sourceId: 'gh', keyId: 'k1' },
      externalId: 'd-1',
      observedAt: '2026-03-01T10:00:00.000Z',
      scheduledAt: null,
      firedAt: '2026-03-01T10:00:02.000Z',
      decidedAt: '2026-03-01T10:00:02.000Z',
      dedupeIdentity: hook.dedupeIdentity,
      executionId: 'e-1',
      causal: { parentId: null, depth: 0, ancestry: [] },
      evidence: { payloadDigest: 'digest-d-1', resourceRefs: ['repo:acme/api'], classification: 'internal' },
      conflicts: 0,
    });
    expect(JSON.stringify(row)).not.toContain('the body is never projected');
  });

  it('keeps the reason and the policy evidence of a blocked Occurrence', async () => {
    expect(await getOccurrence(h.sql, 'acme', refused.occurrenceId)).toMatchObject({
      status: 'blocked',
      reason: 'scope_violation',
      executionId: null,
      firedAt: null,
      evidence: scopeEvidence,
      decidedAt: '2026-03-01T10:01:01.000Z',
    });
  });

  it('shows an undecided schedule Occurrence with its intended instant, and counts payload conflicts once each', async () => {
    expect(await getOccurrence(h.sql, 'acme', pending.occurrenceId)).toMatchObject({
      status: 'observed',
      kind: 'schedule',
      scheduledAt: '2026-03-01T10:02:00.000Z',
      observedAt: '2026-03-01T10:02:00.250Z',
      auth: { state: 'internal', sourceId: null, keyId: null },
      externalId: null,
    });
    expect(await getOccurrence(h.sql, 'acme', conflicted.occurrenceId)).toMatchObject({
      status: 'observed',
      conflicts: 2,
    });
  });

  it("never shows another tenant's Occurrence", async () => {
    expect(await getOccurrence(h.sql, 'acme', foreign.occurrenceId)).toBeNull();
    expect(await getOccurrence(h.sql, 'globex', foreign.occurrenceId)).toMatchObject({ status: 'observed' });
    expect((await listOccurrences(h.sql, 'globex', { limit: 100 })).items.map((o) => o.occurrenceId)).toEqual([
      foreign.occurrenceId,
    ]);
  });

  it('lists newest first, filters by trigger, status and reason, and pages with an opaque cursor', async () => {
    const all = await listOccurrences(h.sql, 'acme', { limit: 100 });
    expect(all.items.map((o) => o.occurrenceId)).toEqual(
      [conflicted, pending, refused, hook].map((o) => o.occurrenceId),
    );
    expect(all.nextCursor).toBeNull();
    expect((await listOccurrences(h.sql, 'acme', { triggerId: 't-sched', limit: 100 })).items).toHaveLength(1);
    expect(
      (await listOccurrences(h.sql, 'acme', { status: 'observed', limit: 100 })).items.map((o) => o.occurrenceId),
    ).toEqual([conflicted.occurrenceId, pending.occurrenceId]);
    expect(
      (await listOccurrences(h.sql, 'acme', { reason: 'scope_violation', limit: 100 })).items.map(
        (o) => o.occurrenceId,
      ),
    ).toEqual([refused.occurrenceId]);

    const first = await listOccurrences(h.sql, 'acme', { limit: 3 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listOccurrences(h.sql, 'acme', { limit: 3, cursor: first.nextCursor! });
    expect([...first.items, ...second.items]).toEqual(all.items);
    expect(second.nextCursor).toBeNull();
    await expect(listOccurrences(h.sql, 'acme', { limit: 3, cursor: 'bm90LWEtY3Vyc29y' })).rejects.toThrow(
      InvalidCursor,
    );
  });

  describe('OP-3 replay safety', () => {
    it('applying every event a second time (a replayed batch) leaves identical rows', async () => {
      const before = await h.dump(occurrencesProjection);
      await replayAll(h, occurrencesProjection);
      expect(await h.dump(occurrencesProjection)).toEqual(before);
    });

    it('a crash mid-batch rolls the batch back, and resuming yields identical rows', async () => {
      const before = await h.dump(occurrencesProjection);
      await expect(crashingRunner(h, occurrencesProjection, 5).rebuild()).rejects.toThrow('simulated crash');
      expect(await h.dump(occurrencesProjection)).not.toEqual(before);
      await h.catchUp();
      expect(await h.dump(occurrencesProjection)).toEqual(before);
    });

    it('rebuild from position 0 yields identical rows', async () => {
      const before = await h.dump(occurrencesProjection);
      expect(before.rm_occurrences).toHaveLength(5);
      expect(before.rm_occurrence_conflicts).toHaveLength(2);
      await h.runners[0]!.rebuild();
      expect(await h.dump(occurrencesProjection)).toEqual(before);
    });
  });
});
