import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
const GUARD = { pointer: '/action', equals: 'opened' };

/** "Why didn't this run?" over HTTP: one status and one reason per Occurrence, filterable, counted per Trigger. */
export function occurrenceFiltersSuite(kind: StoreKind): void {
  describe(`OP-1 OP-2 AD-3 occurrence status and reason filters (${kind})`, () => {
    let t: TestApp;
    const ids: Record<string, string> = {};
    const get = (url: string) => t.request({ method: 'GET', url });
    const listed = async (query: string) => {
      const page = await get(`/v1/operator/occurrences?triggerId=t-why&${query}`);
      expect(page.status).toBe(200);
      return (page.body.items as Array<{ occurrenceId: string }>).map((o) => o.occurrenceId).sort();
    };

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
      expect((await put('/v1/missions/m-why', { state: 'active', grants })).status).toBe(200);
      expect(
        (await put('/v1/triggers/t-why', { expectedRevision: 0, missionId: 'm-why', type: 'manual', guard: GUARD }))
          .status,
      ).toBe(200);
      const fire = async (name: string, input: unknown) => {
        const fired = await t.request({
          method: 'POST',
          url: '/v1/triggers/t-why/occurrences',
          key: newKey(),
          body: { input },
        });
        expect(fired.status).toBe(202);
        ids[name] = fired.body.occurrenceId as string;
      };
      await fire('admitted', { action: 'opened' });
      await fire('falseA', { action: 'closed' });
      await fire('falseB', { action: 'edited' });
      await fire('objectAction', { action: { nested: true } });
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      // Disabled: the next one is decided blocked trigger_disabled.
      expect(
        (await t.request({ method: 'POST', url: '/v1/triggers/t-why/disable', key: newKey(), body: { reason: 'x' } }))
          .status,
      ).toBe(200);
      await fire('disabled', { action: 'opened' });
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
    }, 120_000);
    afterAll(async () => t?.close());

    it('OP-2 AD-3 every Occurrence ends with one status and one reason (admitted: none), and each filter finds exactly its own', async () => {
      const all = await get('/v1/operator/occurrences?triggerId=t-why');
      const decided = (all.body.items as Array<{ occurrenceId: string; status: string; reason: string | null }>).map(
        (o) => [o.occurrenceId, o.status, o.reason],
      );
      expect(decided.sort()).toEqual(
        [
          [ids.admitted, 'admitted', null],
          [ids.falseA, 'suppressed', 'guard_false'],
          [ids.falseB, 'suppressed', 'guard_false'],
          [ids.objectAction, 'suppressed', 'guard_false'],
          [ids.disabled, 'blocked', 'trigger_disabled'],
        ].sort(),
      );
      expect(await listed('status=admitted')).toEqual([ids.admitted]);
      expect(await listed('status=suppressed&reason=guard_false')).toEqual(
        [ids.falseA, ids.falseB, ids.objectAction].sort(),
      );
      expect(await listed('reason=trigger_disabled')).toEqual([ids.disabled]);
      expect(await listed('status=blocked')).toEqual([ids.disabled]);
      // Both must hold: a reason under another status finds nothing.
      expect(await listed('status=blocked&reason=guard_false')).toEqual([]);
      expect(await listed('status=coalesced')).toEqual([]);
      expect(await listed('reason=unchanged')).toEqual([]);
    });

    it('OP-1 trigger health counts by disposition and by reason', async () => {
      const health = await get('/v1/operator/triggers/t-why');
      expect(health.status).toBe(200);
      expect(health.body.counts).toMatchObject({
        observed: 5,
        admitted: 1,
        blocked: { trigger_disabled: 1 },
        suppressed: { guard_false: 3 },
      });
    });

    it('OP-2 hostile: an unknown status or reason, a repeated or over-long one is 400 problem+json naming the parameter', async () => {
      const cases: Array<[string, string]> = [
        ['status=bogus', '?status'],
        ['status=ADMITTED', '?status'],
        ['reason=bogus', '?reason'],
        [`reason=${'guard_false'.repeat(1000)}`, '?reason'],
        ['reason=guard_false&reason=unchanged', '?reason'],
        ['status=admitted&status=blocked', '?status'],
        ['reason=%00', '?reason'],
        ['status=', '?status'],
      ];
      for (const [query, pointer] of cases) {
        const answer = await get(`/v1/operator/occurrences?${query}`);
        expect({ query, status: answer.status }).toEqual({ query, status: 400 });
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(answer.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer })]));
      }
    });

    it('OP-2 hostile: an unknown occurrence id is a plain 404; an over-long or malformed one is a 4xx, never a 5xx', async () => {
      const unknown = await get(`/v1/operator/occurrences/${'f'.repeat(64)}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('not_found');
      for (const bad of ['x'.repeat(129), 'x'.repeat(10_000), '%2e%2e', 'a%00b']) {
        const answer = await get(`/v1/operator/occurrences/${bad}`);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }
    });
  });
}
