import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import { CoalesceTimersService } from '../../src/adapters/coalescing/coalesce-timers.service.js';
import { occurrenceStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

const grants = missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 });
/** Health samples coalesce per host within 1.5 s, except a revoke, which is decided alone at once. */
const COALESCE = [
  {
    match: { pointer: '/type', equals: 'health.sample' },
    mode: 'latest',
    windowMs: 1500,
    resourcePointer: '/host',
    neverCoalesce: { pointer: '/action', equals: 'revoke' },
  },
];

async function until<T>(what: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await what();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** DD-5 over HTTP: manual fires through admission, the window's timer, the read models and the claim body. */
export function coalescingSuite(kind: StoreKind): void {
  describe(`DD-5 coalescing end to end (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const admit = () => t.app.get(AdmissionProcessor).subscription.catchUp();
    const timers = () => t.app.get(CoalesceTimersService).timers;

    beforeAll(async () => {
      // Admission, read models and the timer are driven by hand, so each test sees exactly what it caused.
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function trigger(): Promise<{ missionId: string; triggerId: string }> {
      n += 1;
      const missionId = `m-c${n}`;
      const triggerId = `t-c${n}`;
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
        body: { expectedRevision: 0, missionId, type: 'manual', coalesce: COALESCE },
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

    const eventsOf = async (occurrenceId: string) =>
      (await t.infra.store.readStream(occurrenceStream(occurrenceId))).map((e) => e.type);

    /** The timer closes what is due by the database clock; until then it closes nothing. */
    const closeWhenDue = async () => {
      await until(async () => {
        await t.catchUp();
        return (await timers().runOnce()) > 0;
      });
      await t.catchUp();
    };

    it('DD-5 OP-1 OP-2 a flood of samples is one admission: the last accepted is admitted with members, the others coalesced', async () => {
      const { triggerId } = await trigger();
      const ids: string[] = [];
      // A forged far-future payload time on the first sample never makes it "latest": acceptance order does.
      ids.push(await fire(triggerId, { type: 'health.sample', host: 'h1', at: '2999-01-01T00:00:00Z', v: 0 }));
      for (let v = 1; v < 4; v++)
        ids.push(await fire(triggerId, { type: 'health.sample', host: 'h1', at: '2000-01-01T00:00:00Z', v }));
      await admit();
      // Held in the window: nothing decided, nothing closed before the window passed.
      for (const id of ids) expect(await eventsOf(id)).toEqual(['OccurrenceObserved', 'OccurrenceHeldForCoalescing']);
      await closeWhenDue();
      const last = ids[ids.length - 1]!;
      for (const id of ids.slice(0, -1)) {
        const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${id}` });
        expect(detail.body).toMatchObject({
          status: 'coalesced',
          reason: 'coalesced',
          executionId: null,
          evidence: { coalescedInto: last },
        });
      }
      const admitted = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${last}` });
      expect(admitted.body).toMatchObject({ status: 'admitted', members: ids });
      const executionId = admitted.body.executionId as string;
      const listed = await t.request({
        method: 'GET',
        url: `/v1/operator/occurrences?triggerId=${triggerId}&status=coalesced&reason=coalesced`,
      });
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((o: { occurrenceId: string }) => o.occurrenceId).sort()).toEqual(
        ids.slice(0, -1).sort(),
      );
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      expect(health.body.counts).toMatchObject({ observed: 4, admitted: 1, coalesced: { coalesced: 3 } });
      // The claim body carries the immutable members list, and the input is the last member's own.
      const claim = await t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/claim`,
        key: newKey(),
        body: { consumerId: 'c-1' },
      });
      expect(claim.status).toBe(200);
      expect(claim.body).toMatchObject({ occurrenceId: last, members: ids, input: { v: 3 } });
      // A second look of the timer closes nothing more.
      expect(await timers().runOnce()).toBe(0);
    });

    it('DD-5 a coalesced Occurrence answers coalescedInto (api.md) on the operator detail and list, beside its evidence', async () => {
      const { triggerId } = await trigger();
      const first = await fire(triggerId, { type: 'health.sample', host: 'h1', v: 1 });
      const last = await fire(triggerId, { type: 'health.sample', host: 'h1', v: 2 });
      await admit();
      await closeWhenDue();
      const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${first}` });
      expect(detail.body).toMatchObject({
        status: 'coalesced',
        coalescedInto: last,
        evidence: { coalescedInto: last },
      });
      const listed = await t.request({
        method: 'GET',
        url: `/v1/operator/occurrences?triggerId=${triggerId}&status=coalesced`,
      });
      expect(listed.body.items).toEqual([expect.objectContaining({ occurrenceId: first, coalescedInto: last })]);
      // The admitted member stands for the group; it is coalesced into nothing.
      const admitted = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${last}` });
      expect(admitted.body.status).toBe('admitted');
      expect(admitted.body).not.toHaveProperty('coalescedInto');
    });

    it('DD-5 hostile: a revoke amid a coalescible flood is admitted on its own, at once', async () => {
      const { triggerId } = await trigger();
      const before = [await fire(triggerId, { type: 'health.sample', host: 'h1', v: 1 })];
      const revoke = await fire(triggerId, { type: 'health.sample', host: 'h1', action: 'revoke' });
      const after = [await fire(triggerId, { type: 'health.sample', host: 'h1', v: 2 })];
      await admit();
      // Decided by the admission pass itself, before any window closed.
      expect(await eventsOf(revoke)).toEqual(['OccurrenceObserved', 'OccurrenceAdmitted']);
      await t.catchUp();
      const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${revoke}` });
      expect(detail.body).toMatchObject({ status: 'admitted' });
      expect(detail.body.members).toBeUndefined();
      await closeWhenDue();
      const members = [...before, ...after];
      const last = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${after[0]}` });
      expect(last.body).toMatchObject({ status: 'admitted', members });
      expect(last.body.members).not.toContain(revoke);
    });

    it('DD-5 an Occurrence no rule matches is decided alone at once; another resource is another group', async () => {
      const { triggerId } = await trigger();
      const other = await fire(triggerId, { type: 'deploy', host: 'h1' });
      const h1 = await fire(triggerId, { type: 'health.sample', host: 'h1' });
      const h2 = await fire(triggerId, { type: 'health.sample', host: 'h2' });
      await admit();
      expect(await eventsOf(other)).toEqual(['OccurrenceObserved', 'OccurrenceAdmitted']);
      await closeWhenDue();
      await until(async () => {
        await timers().runOnce();
        await t.catchUp();
        const [a, b] = await Promise.all([eventsOf(h1), eventsOf(h2)]);
        return a.includes('OccurrenceAdmitted') && b.includes('OccurrenceAdmitted');
      });
      const detail = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${h2}` });
      expect(detail.body).toMatchObject({ status: 'admitted', members: [h2] });
    });

    it('AU-2 DD-5 audit verify passes over the log with coalescing: one decision each, read models rebuilt equal', async () => {
      const { triggerId } = await trigger();
      await fire(triggerId, { type: 'health.sample', host: 'h9', v: 1 });
      // Left open on purpose: an open group's row must rebuild equal too.
      await admit();
      await t.catchUp();
      const report = await auditVerify(t.infra);
      expect(report).toMatchObject({ ok: true, violations: 0, listed: [] });
      expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
      expect(report.readModels.map((table) => table.table)).toContain('rm_coalesce_open');
    });
  });
}
