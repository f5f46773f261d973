import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 100 });

/** `DELETE /v1/triggers/{triggerId}` (api.md, Triggers; TR-1, TR-3, AD-2, AD-3). */
export function deleteTriggerSuite(kind: StoreKind): void {
  describe(`deleting a Trigger (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();

    beforeAll(async () => {
      // Admission by hand: an Occurrence can wait queued while its Trigger is deleted.
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function setup() {
      n += 1;
      const missionId = `m-del-${n}`;
      const triggerId = `t-del-${n}`;
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
      expect((await put(`/v1/missions/${missionId}`, { state: 'active', grants })).status).toBe(200);
      const created = await put(`/v1/triggers/${triggerId}`, { expectedRevision: 0, missionId, type: 'manual' });
      expect(created.status).toBe(200);
      return { missionId, triggerId };
    }
    const remove = (
      triggerId: string,
      body: unknown = { reason: 'retired' },
      options: { key?: string; token?: string } = {},
    ) =>
      t.request({
        method: 'DELETE',
        url: `/v1/triggers/${triggerId}`,
        key: options.key ?? newKey(),
        body,
        token: options.token,
      });
    const get = (url: string) => t.request({ method: 'GET', url });

    it('TR-1 answers its final revision; the Trigger then reads 404, its revisions stay listed with the deletion last', async () => {
      const { triggerId } = await setup();
      const deleted = await remove(triggerId, { reason: 'retired', expectedRevision: 1 });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ triggerId, revision: 2, position: expect.any(Number) });
      const read = await get(`/v1/triggers/${triggerId}`);
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('not_found');
      const revisions = await get(`/v1/triggers/${triggerId}/revisions`);
      expect(revisions.status).toBe(200);
      expect(revisions.body.items.map((item: { revision: number }) => item.revision)).toEqual([1, 2]);
      expect(revisions.body.items[1]).toMatchObject({ revision: 2, reason: 'retired' });
    });

    it('TR-1 the revisions are a paginated list: limit, an opaque cursor, 400 for a bad limit or cursor', async () => {
      const { triggerId } = await setup();
      expect(
        (await t.request({ method: 'POST', url: `/v1/triggers/${triggerId}/disable`, key: newKey(), body: {} })).status,
      ).toBe(200);
      expect((await remove(triggerId)).status).toBe(200);
      const first = await get(`/v1/triggers/${triggerId}/revisions?limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.items.map((item: { revision: number }) => item.revision)).toEqual([1, 2]);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await get(`/v1/triggers/${triggerId}/revisions?limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items).toEqual([expect.objectContaining({ revision: 3, definition: null, deleted: true })]);
      expect(second.body.nextCursor).toBeNull();
      for (const bad of ['limit=0', 'limit=501', 'limit=abc', 'cursor=garbage']) {
        const refused = await get(`/v1/triggers/${triggerId}/revisions?${bad}`);
        expect([bad, refused.status]).toEqual([bad, 400]);
        expect(refused.body.code).toBe('BAD_REQUEST');
      }
    });

    it('SEC-3 the same Idempotency-Key replays the answer; a new DELETE of a deleted Trigger is 404 and appends nothing', async () => {
      const { triggerId } = await setup();
      const key = newKey();
      const first = await remove(triggerId, { reason: 'retired' }, { key });
      const again = await remove(triggerId, { reason: 'retired' }, { key });
      expect(again.status).toBe(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      const other = await remove(triggerId);
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('not_found');
      const revisions = await get(`/v1/triggers/${triggerId}/revisions`);
      expect(revisions.body.items).toHaveLength(2);
    });

    it('TR-3 a stale expectedRevision is 409 revision_conflict with the current revision, and deletes nothing', async () => {
      const { triggerId } = await setup();
      const stale = await remove(triggerId, { reason: 'retired', expectedRevision: 5 });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'revision_conflict', currentRevision: 1 });
      expect((await get(`/v1/triggers/${triggerId}`)).status).toBe(200);
    });

    it('a Trigger never defined is 404; another tenant cannot delete (or learn of) this one', async () => {
      expect((await remove('t-never')).status).toBe(404);
      const { triggerId } = await setup();
      const other = await remove(triggerId, { reason: 'x' }, { token: await t.token({ tenant: 'someone-else' }) });
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('not_found');
      expect((await get(`/v1/triggers/${triggerId}`)).status).toBe(200);
    });

    it('refuses a body that is not the documented one (400 with pointers), and a token without triggers:write (403)', async () => {
      const { triggerId } = await setup();
      const wrong = await remove(triggerId, { reason: 42 });
      expect(wrong.status).toBe(400);
      expect(wrong.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: '/reason' })]));
      const unscoped = await remove(triggerId, { reason: 'x' }, { token: await t.token({ scope: 'operator:read' }) });
      expect(unscoped.status).toBe(403);
      expect((await get(`/v1/triggers/${triggerId}`)).status).toBe(200);
    });

    it('AD-2 AD-3 an Occurrence queued before the deletion is blocked trigger_deleted; a manual fire afterwards is 404', async () => {
      const { triggerId } = await setup();
      const fired = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key: newKey(),
        body: { input: { n: 1 } },
      });
      expect(fired.status).toBe(202);
      expect((await remove(triggerId)).status).toBe(200);
      await admit();
      const decided = (await t.infra.store.readStream(occurrenceStream(fired.body.occurrenceId))).filter(
        (e) => e.type === 'OccurrenceAdmitted' || e.type === 'OccurrenceBlocked',
      );
      expect(decided).toHaveLength(1);
      expect(decided[0]).toMatchObject({ type: 'OccurrenceBlocked', data: { reason: 'trigger_deleted' } });
      const after = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences`,
        key: newKey(),
        body: { input: { n: 2 } },
      });
      expect(after.status).toBe(404);
    });

    it('TR-5 a PUT with expectedRevision 0 creates it again, with a new dedupe epoch', async () => {
      const { triggerId, missionId } = await setup();
      const before = await get(`/v1/triggers/${triggerId}`);
      expect((await remove(triggerId)).status).toBe(200);
      const again = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId, type: 'manual' },
      });
      expect(again.status).toBe(200);
      expect(again.body.revision).toBe(3);
      const after = await get(`/v1/triggers/${triggerId}`);
      expect(after.status).toBe(200);
      expect(after.body.dedupeEpoch).not.toBe(before.body.dedupeEpoch);
    });
  });
}
