import { CommandBus } from '@nestjs/cqrs';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { AdmitOccurrenceCommand } from '../../src/commands/admit-occurrence/admit-occurrence.command.js';
import { TrustedClock } from '../../src/commands/shared/trusted-clock.js';
import { WAKEUP_EVENT_TYPES } from '../../src/domain/execution/wakeup.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { post, standardHeaders, webhookSetup } from '../ingress/ingress-client.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
const UNCHANGED = { id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' };

/** AD-4 over HTTP: manual fires and signed webhooks through the whole pipeline, on one store kind. */
export function prefiltersSuite(kind: StoreKind): void {
  describe(`AD-4 prefilters at admission (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function manualTrigger(prefilters: unknown[]): Promise<{ missionId: string; triggerId: string }> {
      n += 1;
      const missionId = `m-p${n}`;
      const triggerId = `t-p${n}`;
      const m = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        body: { state: 'active', grants },
      });
      expect(m.status).toBe(200);
      const tr = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId, type: 'manual', prefilters },
      });
      expect(tr.status).toBe(200);
      return { missionId, triggerId };
    }

    const fire = async (triggerId: string, input: unknown): Promise<string> => {
      const fired = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key: newKey(),
        body: { input },
      });
      expect(fired.status).toBe(202);
      return fired.body.occurrenceId as string;
    };
    const decision = async (occurrenceId: string) => {
      const events = (await t.infra.store.readStream(occurrenceStream(occurrenceId))).filter(
        (e) => e.type !== 'OccurrenceObserved',
      );
      expect(events).toHaveLength(1);
      return events[0]!;
    };
    const wokeFor = async (occurrenceId: string) =>
      Number(
        (
          await t.sql.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM events WHERE type = ANY($1::text[]) AND data->>'occurrenceId' = $2`,
            [[...WAKEUP_EVENT_TYPES], occurrenceId],
          )
        ).rows[0]!.n,
      );

    it('AD-4 unchanged@1: first sighting passes (baseline: null), the same digest is suppressed unchanged, a new one passes', async () => {
      const { triggerId } = await manualTrigger([UNCHANGED]);
      const first = await fire(triggerId, { resource: { id: 'r-1', etag: 'v1' } });
      await admit();
      const admitted = await decision(first);
      expect(admitted).toMatchObject({
        type: 'OccurrenceAdmitted',
        data: {
          prefilters: [
            { filter: 'unchanged', version: 1, triggerRevision: 1, resource: 'r-1', digest: 'v1', baseline: null },
          ],
        },
      });
      const same = await fire(triggerId, { resource: { id: 'r-1', etag: 'v1' } });
      const otherResource = await fire(triggerId, { resource: { id: 'r-2', etag: 'v1' } });
      await admit();
      expect(await decision(same)).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: {
          reason: 'unchanged',
          evidence: {
            filter: 'unchanged',
            version: 1,
            triggerRevision: 1,
            resource: 'r-1',
            digest: 'v1',
            baseline: { occurrenceId: first, digest: 'v1', triggerRevision: 1 },
          },
        },
      });
      expect(await wokeFor(same)).toBe(0);
      expect(await decision(otherResource)).toMatchObject({ type: 'OccurrenceAdmitted' });
      const changed = await fire(triggerId, { resource: { id: 'r-1', etag: 'v2' } });
      await admit();
      expect(await decision(changed)).toMatchObject({
        type: 'OccurrenceAdmitted',
        data: { prefilters: [{ digest: 'v2', baseline: { occurrenceId: first, digest: 'v1' } }] },
      });

      await t.catchUp();
      const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${same}` });
      expect(detail.body).toMatchObject({
        status: 'suppressed',
        reason: 'unchanged',
        evidence: { baseline: { occurrenceId: first } },
      });
      const firstDetail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${first}` });
      expect(firstDetail.body).toMatchObject({
        status: 'admitted',
        evidence: { payloadDigest: expect.any(String), prefilters: [{ baseline: null }] },
      });
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      expect(health.body).toMatchObject({ counts: { admitted: 3, suppressed: { unchanged: 1 } } });
    });

    it('AD-4 two fires of one resource decided in one batch: the second compares with the first, admitted just before', async () => {
      const { triggerId } = await manualTrigger([UNCHANGED]);
      const a = await fire(triggerId, { resource: { id: 'r-b', etag: 'same' } });
      const b = await fire(triggerId, { resource: { id: 'r-b', etag: 'same' } });
      await admit(); // one page: both decided in one admitInOrder
      expect((await decision(a)).type).toBe('OccurrenceAdmitted');
      expect(await decision(b)).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: { reason: 'unchanged', evidence: { baseline: { occurrenceId: a } } },
      });
    });

    it('AD-4 admitters racing for one resource serialize on its baseline: exactly one admits, the rest are unchanged', async () => {
      const { triggerId } = await manualTrigger([UNCHANGED]);
      const bus = t.app.get(CommandBus);
      const fired: string[] = [];
      for (let i = 0; i < 4; i++) fired.push(await fire(triggerId, { resource: { id: 'r-race', etag: 'same' } }));
      const answers = await Promise.all(
        fired.map((id) => bus.execute(new AdmitOccurrenceCommand(occurrenceStream(id)))),
      );
      expect(answers.map((a) => a.decision).sort()).toEqual(['admitted', 'suppressed', 'suppressed', 'suppressed']);
      const winner = answers.find((a) => a.decision === 'admitted')!.occurrenceId;
      for (const id of fired.filter((f) => f !== winner))
        expect(await decision(id)).toMatchObject({
          type: 'OccurrenceSuppressed',
          data: { reason: 'unchanged', evidence: { baseline: { occurrenceId: winner } } },
        });
      const recorded = await t.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE type = 'ResourceBaselineRecorded' AND data->>'triggerId' = $1`,
        [triggerId],
      );
      expect(recorded.rows[0]!.n).toBe(1);
    });

    it('AD-4 hostile: a missing or non-string digest is blocked filter_inconclusive, never unchanged', async () => {
      const { triggerId } = await manualTrigger([UNCHANGED]);
      await fire(triggerId, { resource: { id: 'r-h', etag: 'v1' } });
      await admit();
      const missing = await fire(triggerId, { resource: { id: 'r-h' } });
      const numeric = await fire(triggerId, { resource: { id: 'r-h', etag: 1 } });
      const noResource = await fire(triggerId, { resource: { etag: 'v1' } });
      await admit();
      for (const occurrenceId of [missing, numeric, noResource]) {
        const decided = await decision(occurrenceId);
        expect(decided).toMatchObject({ type: 'OccurrenceBlocked', data: { reason: 'filter_inconclusive' } });
        expect(await wokeFor(occurrenceId)).toBe(0);
      }
      // The refused ones moved no baseline: the same digest as the admitted one is still unchanged.
      const again = await fire(triggerId, { resource: { id: 'r-h', etag: 'v1' } });
      await admit();
      expect(await decision(again)).toMatchObject({ type: 'OccurrenceSuppressed', data: { reason: 'unchanged' } });
    });

    it('AD-4 relevant@1: an unlisted value is suppressed irrelevant, a missing one is filter_inconclusive', async () => {
      const { triggerId } = await manualTrigger([{ id: 'relevant', version: 1, pointer: '/kind', in: ['push'] }]);
      const yes = await fire(triggerId, { kind: 'push' });
      const no = await fire(triggerId, { kind: 'issue' });
      const missing = await fire(triggerId, {});
      await admit();
      expect((await decision(yes)).type).toBe('OccurrenceAdmitted');
      expect(await decision(no)).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: { reason: 'irrelevant', evidence: { filter: 'relevant', version: 1, pointer: '/kind', value: 'issue' } },
      });
      expect(await decision(missing)).toMatchObject({
        type: 'OccurrenceBlocked',
        data: { reason: 'filter_inconclusive' },
      });
    });

    it('AD-4 window@1 reads the database clock at acceptance: outside is suppressed outside_window', async () => {
      const clock = t.app.get(TrustedClock);
      const now = await clock.now();
      const day = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][now.getUTCDay()];
      const other = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'][(now.getUTCDay() + 3) % 7];
      // All of today (UTC) on today's weekday, and the same hours on another day only.
      const around = { from: '00:00', until: '24:00' };
      const open = await manualTrigger([{ id: 'window', version: 1, timezone: 'UTC', days: [day], ...around }]);
      const closed = await manualTrigger([{ id: 'window', version: 1, timezone: 'UTC', days: [other], ...around }]);
      const inside = await fire(open.triggerId, {});
      const outside = await fire(closed.triggerId, {});
      await admit();
      expect((await decision(inside)).type).toBe('OccurrenceAdmitted');
      const observedAt = (await t.infra.store.readStream(occurrenceStream(outside)))[0]!.data as { observedAt: string };
      expect(await decision(outside)).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: {
          reason: 'outside_window',
          evidence: { filter: 'window', version: 1, at: observedAt.observedAt, timezone: 'UTC', day },
        },
      });
    });

    it('AD-4 ?wait=decision answers suppressed with unchanged', async () => {
      const { triggerId } = await manualTrigger([UNCHANGED]);
      await fire(triggerId, { resource: { id: 'r-w', etag: 'x' } });
      await admit();
      const processor = t.app.get(AdmissionProcessor).subscription;
      processor.start();
      try {
        const response = await t.request({
          method: 'POST',
          url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
          key: newKey(),
          body: { input: { resource: { id: 'r-w', etag: 'x' } } },
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ status: 'suppressed', reason: 'unchanged', executionId: null });
      } finally {
        await processor.stop();
      }
    });

    it('AD-4 WH-7 a signed webhook: unchanged is suppressed and its redelivery a duplicate; a missing digest is inconclusive', async () => {
      const s = await webhookSetup(t, `prefilter-${kind}`, { trigger: { prefilters: [UNCHANGED] } });
      const deliver = (payload: unknown, id: string) => {
        const body = JSON.stringify(payload);
        return post(t, s.sourceId, body, standardHeaders(s.secret, body, { id }));
      };
      const payload = { type: 'push', resource: { id: 'repo', etag: 'sha-1' } };
      const first = await deliver(payload, 'msg_pf_1');
      await admit();
      const second = await deliver(payload, 'msg_pf_2');
      await admit();
      const secondId = second.body.occurrences[0].occurrenceId as string;
      expect(await decision(secondId)).toMatchObject({
        type: 'OccurrenceSuppressed',
        data: { reason: 'unchanged', evidence: { baseline: { occurrenceId: first.body.occurrences[0].occurrenceId } } },
      });
      const redelivered = await deliver(payload, 'msg_pf_2');
      expect(redelivered.status).toBe(200);
      expect(redelivered.body.occurrences[0]).toMatchObject({ occurrenceId: secondId, status: 'duplicate' });
      const hostile = await deliver({ type: 'push', resource: { id: 'repo' } }, 'msg_pf_3');
      await admit();
      expect(await decision(hostile.body.occurrences[0].occurrenceId)).toMatchObject({
        type: 'OccurrenceBlocked',
        data: { reason: 'filter_inconclusive', evidence: { problem: 'digest missing' } },
      });
    });

    it('AD-4 an unknown filter or bad parameters are 422 invalid_definition with pointers', async () => {
      const { missionId } = await manualTrigger([]);
      const put = (prefilters: unknown) =>
        t.request({
          method: 'PUT',
          url: '/v1/triggers/t-bad-pf',
          key: newKey(),
          body: { missionId, type: 'manual', prefilters },
        });
      const unknown = await put([{ id: 'sentiment', version: 1 }]);
      expect(unknown.status).toBe(422);
      expect(unknown.body).toMatchObject({ code: 'invalid_definition', errors: [{ pointer: '/prefilters/0/id' }] });
      const bad = await put([
        { id: 'unchanged', version: 1, resourcePointer: '/r' },
        { id: 'window', version: 1, timezone: 'Nowhere/Land', days: ['mon'], from: '09:00', until: '17:00' },
      ]);
      expect(bad.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
        '/prefilters/0/digestPointer',
        '/prefilters/1/timezone',
      ]);
    });
  });
}
