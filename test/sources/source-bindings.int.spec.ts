import { TriggerBindings } from '../../src/adapters/ingress/trigger-bindings.js';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { observed } from '../../src/domain/occurrence/occurrence.fixtures.js';
import { occurrenceStream, triggerStream } from '../../src/domain/shared/ids.js';
import { sourceBindingsProjection } from '../../src/projections/source-bindings/source-bindings.projection.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { GRANTS, sourcesApi, triggerDeleted, triggerRevised } from './fixtures.js';

describe('source bindings and key re-checks on postgres (WH-6, WH-3, AD-2)', () => {
  let t: TestApp;
  const bound = async (tenant: string, sourceId: string, eventType: string | null) =>
    (await t.app.get(TriggerBindings).forEvent(tenant, sourceId, eventType)).map((b) => b.triggerId);
  const append = (tenant: string, triggerId: string, ...events: Parameters<typeof triggerRevised>[0][]) =>
    t.infra.store.append(triggerStream(tenant, triggerId), events.map(triggerRevised), 'any');

  beforeAll(async () => {
    // Admission is driven by hand so each test decides when occurrences are admitted.
    t = await startTestApp('postgres', { autostart: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('WH-6 the source-bindings read model maps (tenant, source, event type) to webhook Triggers', () => {
    it('matches listed event types, and an absent or empty list matches every type (an untyped delivery only those)', async () => {
      await append('tenant-a', 'w-push', {
        tenant: 'tenant-a',
        triggerId: 'w-push',
        revision: 1,
        sourceId: 'hooks',
        eventTypes: ['push', 'release'],
      });
      await append('tenant-a', 'w-any', { tenant: 'tenant-a', triggerId: 'w-any', revision: 1, sourceId: 'hooks' });
      await append('tenant-a', 'w-empty', {
        tenant: 'tenant-a',
        triggerId: 'w-empty',
        revision: 1,
        sourceId: 'hooks',
        eventTypes: [],
      });
      await append('tenant-a', 'w-other', {
        tenant: 'tenant-a',
        triggerId: 'w-other',
        revision: 1,
        sourceId: 'elsewhere',
      });
      await append('tenant-a', 'manual', { tenant: 'tenant-a', triggerId: 'manual', revision: 1, type: 'manual' });
      await append('tenant-b', 'w-b', { tenant: 'tenant-b', triggerId: 'w-b', revision: 1, sourceId: 'hooks' });
      await t.catchUp();
      expect(await bound('tenant-a', 'hooks', 'push')).toEqual(['w-any', 'w-empty', 'w-push']);
      expect(await bound('tenant-a', 'hooks', 'issues')).toEqual(['w-any', 'w-empty']);
      expect(await bound('tenant-a', 'hooks', null)).toEqual(['w-any', 'w-empty']);
      expect(await bound('tenant-a', 'elsewhere', 'push')).toEqual(['w-other']);
      expect(await bound('tenant-b', 'hooks', 'push')).toEqual(['w-b']);
      expect(await bound('tenant-c', 'hooks', 'push')).toEqual([]);
    });

    it('follows revisions and deletion, keeps disabled Triggers, and ignores a replayed older event', async () => {
      const tenant = 'tenant-r';
      await append(tenant, 'w1', { tenant, triggerId: 'w1', revision: 1, sourceId: 'gh', eventTypes: ['push'] });
      await t.catchUp();
      expect(await bound(tenant, 'gh', 'push')).toEqual(['w1']);
      const disabled = triggerRevised({
        tenant,
        triggerId: 'w1',
        revision: 2,
        sourceId: 'gh',
        eventTypes: ['pull_request'],
      });
      (disabled.data as { definition: { enabled: boolean } }).definition.enabled = false;
      await t.infra.store.append(triggerStream(tenant, 'w1'), [disabled], 'any');
      await t.catchUp();
      expect(await bound(tenant, 'gh', 'push')).toEqual([]);
      expect(await bound(tenant, 'gh', 'pull_request')).toEqual(['w1']);
      await t.infra.store.append(triggerStream(tenant, 'w1'), [triggerDeleted(tenant, 'w1', 3)], 'any');
      await t.catchUp();
      expect(await bound(tenant, 'gh', 'pull_request')).toEqual([]);
      // A replay after a crash re-applies old events: the revision guard keeps the newer row.
      const [first] = await t.infra.store.readStream(triggerStream(tenant, 'w1'));
      await sourceBindingsProjection.apply(first!, t.sql);
      expect(await bound(tenant, 'gh', 'push')).toEqual([]);
      const row = await t.sql.query(
        'SELECT source_id, event_types, deleted, revision FROM rm_source_bindings WHERE tenant = $1 AND trigger_id = $2',
        [tenant, 'w1'],
      );
      expect(row.rows).toEqual([{ source_id: 'gh', event_types: ['pull_request'], deleted: true, revision: 3 }]);
      // Re-created (revisions continue), then turned into a manual Trigger: bound, then unbound.
      await append(tenant, 'w1', { tenant, triggerId: 'w1', revision: 4, sourceId: 'gh' });
      await t.catchUp();
      expect(await bound(tenant, 'gh', 'push')).toEqual(['w1']);
      await append(tenant, 'w1', { tenant, triggerId: 'w1', revision: 5, type: 'manual' });
      await t.catchUp();
      expect(await bound(tenant, 'gh', 'push')).toEqual([]);
    });
  });

  describe('AD-2 WH-3 admission re-checks the key that authenticated a delivery', () => {
    it('blocks key_revoked when that key was retired after observation, and admits under a current key', async () => {
      const token = await t.token({ tenant: 'acme' });
      const api = sourcesApi(t);
      expect(
        (
          await t.request({
            method: 'PUT',
            url: '/v1/missions/m-1',
            key: newKey(),
            token,
            body: { state: 'active', grants: GRANTS },
          })
        ).status,
      ).toBe(200);
      await append('acme', 't-1', { tenant: 'acme', triggerId: 't-1', revision: 1, sourceId: 'gh' });
      expect((await api.put('gh', { scheme: 'standard-webhooks' }, token)).status).toBe(200);
      await api.addKey('gh', { keyId: 'k1' }, newKey(), token);
      await api.addKey('gh', { keyId: 'k2' }, newKey(), token);
      const byRetired = observed({ triggerRevision: 1 }, 'd-1');
      const byCurrent = observed(
        { triggerRevision: 1, auth: { state: 'verified', sourceId: 'gh', keyId: 'k2', keyGeneration: 2 } },
        'd-2',
      );
      for (const o of [byRetired, byCurrent]) {
        await t.infra.store.append(
          occurrenceStream(o.occurrenceId),
          [{ type: 'OccurrenceObserved', data: o, metadata: { tenant: 'acme' } }],
          'no_stream',
        );
      }
      expect((await api.retire('gh', 'k1', token)).status).toBe(200);
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const decision = async (occurrenceId: string) =>
        (await t.infra.store.readStream(occurrenceStream(occurrenceId)))
          .slice(1)
          .map((e) => ({ type: e.type, data: e.data }));
      expect(await decision(byRetired.occurrenceId)).toEqual([
        {
          type: 'OccurrenceBlocked',
          data: expect.objectContaining({
            reason: 'key_revoked',
            evidence: { sourceId: 'gh', keyId: 'k1', keyGeneration: 1 },
          }),
        },
      ]);
      expect((await decision(byCurrent.occurrenceId)).map((e) => e.type)).toEqual(['OccurrenceAdmitted']);
    });
  });
});
