import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { verifyStreamChain } from '../../src/domain/audit/verify-chain.js';
import { missionStream, triggerStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { wholeLog } from '../support/whole-log.js';

const TENANTS = ['tenant-a', 'tenant-b'] as const;

/** AU-1, SEC-2 over HTTP: the audit feed and stream reads, with two tenants that both own an `m-1` and a `t-1`. */
export function auditFeedSuite(kind: StoreKind): void {
  describe(`AU-1 audit feed (${kind})`, () => {
    let t: TestApp;
    const as = async (tenant: string, url: string, scope = 'audit:read') =>
      t.request({ method: 'GET', url, token: await t.token({ tenant, scope }) });

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      for (const tenant of TENANTS) {
        const token = await t.token({ tenant });
        const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), token, body });
        expect(
          (
            await put('/v1/missions/m-1', {
              state: 'active',
              grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 }),
            })
          ).status,
        ).toBe(200);
        expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
        expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual', enabled: false })).status).toBe(200);
        expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
        for (let i = 0; i < 3; i++) {
          const fired = await t.request({
            method: 'POST',
            url: '/v1/triggers/t-1/occurrences',
            key: newKey(),
            token,
            body: { input: { n: i, tenant } },
          });
          expect(fired.status).toBe(202);
        }
      }
      await t.app.get(AdmissionProcessor).subscription.catchUp();
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Follows `next` from the start, `limit` at a time. */
    async function readFeed(tenant: string, limit: number) {
      const events: any[] = [];
      let after = 0;
      for (let pages = 0; pages < 100; pages++) {
        const page = await as(tenant, `/v1/audit/events?after=${after}&limit=${limit}`);
        expect(page.status).toBe(200);
        expect(page.body.events.length).toBeLessThanOrEqual(limit);
        events.push(...page.body.events);
        if (page.body.next === null) return events;
        expect(page.body.next).toBe(page.body.events.at(-1)?.position ?? page.body.next);
        after = page.body.next;
      }
      throw new Error('the feed never ended');
    }

    it("AU-1 SEC-2 pages through exactly the tenant's events, in the store's log order, each as stored", async () => {
      const log = await wholeLog(t.infra.store, { raw: true });
      for (const tenant of TENANTS) {
        const own = log.filter((e) => e.metadata.tenant === tenant);
        expect(own.length).toBeGreaterThanOrEqual(10); // definitions, observations, admissions, budget
        const events = await readFeed(tenant, 2);
        expect(events).toEqual(
          own.map(
            ({
              position,
              id,
              streamId,
              revision,
              type,
              schemaVersion,
              data,
              metadata,
              recordedAt,
              hash,
              prevHash,
            }) => ({
              position,
              id,
              streamId,
              revision,
              type,
              schemaVersion,
              data,
              metadata,
              recordedAt,
              hash,
              prevHash,
            }),
          ),
        );
        // What an auditor holds is enough to verify every chain (AU-2).
        const byStream = new Map<string, any[]>();
        for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
        for (const stream of byStream.values()) expect(verifyStreamChain(stream)).toEqual([]);
      }
    });

    it("SEC-2 hostile: tenant-a never sees tenant-b's events, even those of its own ids m-1 and t-1", async () => {
      const events = await readFeed('tenant-a', 500);
      const foreign = [missionStream('tenant-b', 'm-1'), triggerStream('tenant-b', 't-1')];
      expect(events.some((e) => foreign.includes(e.streamId))).toBe(false);
      expect(JSON.stringify(events)).not.toContain('tenant-b');
      expect(events.map((e) => e.streamId)).toContain(missionStream('tenant-a', 'm-1'));
    });

    it('AU-1 ends with next: null, and a page after the last own event is empty', async () => {
      const all = await as('tenant-a', '/v1/audit/events?limit=500');
      expect(all.body.next).toBeNull();
      const last = all.body.events.at(-1).position;
      expect((await as('tenant-a', `/v1/audit/events?after=${last}`)).body).toEqual({ events: [], next: null });
      const limited = await as('tenant-a', '/v1/audit/events?limit=1');
      expect(limited.body.events).toEqual([all.body.events[0]]);
      expect(limited.body.next).toBe(all.body.events[0].position);
      // api.md: `next` is null at the end, also when the last page holds exactly `limit` events
      const exact = await as('tenant-a', `/v1/audit/events?limit=${all.body.events.length}`);
      expect(exact.body).toEqual({ events: all.body.events, next: null });
      const beforeLast = all.body.events.at(-2).position;
      expect((await as('tenant-a', `/v1/audit/events?after=${beforeLast}&limit=1`)).body).toEqual({
        events: [all.body.events.at(-1)],
        next: null,
      });
    });

    it("AU-1 reads a stream from a revision; SEC-2 another tenant's stream is the same 404 as none", async () => {
      const own = triggerStream('tenant-a', 't-1');
      const whole = await as('tenant-a', `/v1/audit/streams/${own}`);
      expect(whole.status).toBe(200);
      expect(whole.body.streamId).toBe(own);
      expect(whole.body.events.map((e: any) => [e.revision, e.type])).toEqual([
        [0, 'TriggerRevised'],
        [1, 'TriggerRevised'],
        [2, 'TriggerRevised'],
      ]);
      expect(whole.body.nextRevision).toBeNull();
      expect(verifyStreamChain(whole.body.events)).toEqual([]);
      const tail = await as('tenant-a', `/v1/audit/streams/${own}?fromRevision=1&limit=1`);
      expect(tail.body.events).toEqual([whole.body.events[1]]);
      expect(tail.body.nextRevision).toBe(2);
      expect((await as('tenant-a', `/v1/audit/streams/${own}?fromRevision=9`)).body.events).toEqual([]);

      const foreign = await as('tenant-a', `/v1/audit/streams/${triggerStream('tenant-b', 't-1')}`);
      const missing = await as('tenant-a', `/v1/audit/streams/trigger-${'0'.repeat(64)}`);
      // Asking past the end of a foreign stream must not tell it apart from a missing one either.
      const foreignTail = await as('tenant-a', `/v1/audit/streams/${triggerStream('tenant-b', 't-1')}?fromRevision=9`);
      for (const response of [foreign, missing, foreignTail]) {
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('not_found');
      }
      expect(foreign.body).toEqual(missing.body);
    });

    it('SEC-2 needs audit:read: operator:read alone is 403 INSUFFICIENT_SCOPE', async () => {
      for (const url of ['/v1/audit/events', `/v1/audit/streams/${missionStream('tenant-a', 'm-1')}`]) {
        const response = await as('tenant-a', url, 'operator:read missions:write');
        expect(response.status).toBe(403);
        expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
      }
    });

    it('AU-1 validates every parameter before reading: 400 BAD_REQUEST with pointers', async () => {
      const bad: Array<[string, string[]]> = [
        ['/v1/audit/events?limit=0', ['?limit']],
        ['/v1/audit/events?limit=501', ['?limit']],
        ['/v1/audit/events?after=-1&limit=x', ['?after', '?limit']],
        ['/v1/audit/events?after=1e3', ['?after']],
        ['/v1/audit/events?after=1&after=2', ['?after']],
        ['/v1/audit/events?after=99999999999999999999', ['?after']],
        // A position the log does not hold would silently restart the log from its beginning.
        ['/v1/audit/events?after=987654321', ['?after']],
        [`/v1/audit/streams/${missionStream('tenant-a', 'm-1')}?fromRevision=2147483648`, ['?fromRevision']],
        [
          `/v1/audit/streams/${missionStream('tenant-a', 'm-1')}?fromRevision=-1&limit=600`,
          ['?fromRevision', '?limit'],
        ],
        ['/v1/audit/streams/..%2Fevents', ['']],
      ];
      for (const [url, pointers] of bad) {
        const response = await as('tenant-a', url);
        expect({ url, status: response.status, code: response.body.code }).toEqual({
          url,
          status: 400,
          code: 'BAD_REQUEST',
        });
        expect(response.body.errors.map((e: any) => e.pointer)).toEqual(pointers);
      }
    });

    it('AU-1 audit reads take ?minPosition (api.md Conventions): they wait until the store holds P, else answer stale: true; a malformed one is 400', async () => {
      const stream = `/v1/audit/streams/${missionStream('tenant-a', 'm-1')}`;
      for (const [url, pointers] of [
        ['/v1/audit/events?minPosition=abc', ['?minPosition']],
        ['/v1/audit/events?minPosition=-1&limit=0', ['?limit', '?minPosition']],
        [`${stream}?minPosition=1.5`, ['?minPosition']],
        [`${stream}?minPosition=1&minPosition=2`, ['?minPosition']],
      ] as Array<[string, string[]]>) {
        const response = await as('tenant-a', url);
        expect({ url, status: response.status, pointers: response.body.errors?.map((e: any) => e.pointer) }).toEqual({
          url,
          status: 400,
          pointers,
        });
      }

      const head = await t.infra.store.headPosition();
      for (const url of ['/v1/audit/events?limit=500', stream]) {
        const caughtUp = await as('tenant-a', `${url}${url.includes('?') ? '&' : '?'}minPosition=${head}`);
        expect([url, caughtUp.status, caughtUp.body.stale]).toEqual([url, 200, undefined]);
      }

      // A read asked for a position not yet written waits for it: the write lands meanwhile and is in the answer.
      const token = await t.token({ tenant: 'tenant-a' });
      const waiting = Promise.all(
        ['/v1/audit/events?limit=500', stream].map((url) =>
          as('tenant-a', `${url}${url.includes('?') ? '&' : '?'}minPosition=${head + 1}`),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const revised = await t.request({
        method: 'PUT',
        url: '/v1/missions/m-1',
        key: newKey(),
        token,
        body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 9 }) },
      });
      expect(revised.status).toBe(200);
      const [feed, own] = await waiting;
      expect([feed.status, feed.body.stale, own.status, own.body.stale]).toEqual([200, undefined, 200, undefined]);
      expect(feed.body.events.map((e: any) => e.position)).toContain(revised.body.position);
      expect(own.body.events.map((e: any) => e.position)).toContain(revised.body.position);

      // Never reached within 2 s: what the log has, marked stale.
      const started = Date.now();
      const [staleFeed, staleStream] = await Promise.all(
        ['/v1/audit/events?limit=500', stream].map((url) =>
          as('tenant-a', `${url}${url.includes('?') ? '&' : '?'}minPosition=${revised.body.position + 1_000_000}`),
        ),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect([staleFeed.status, staleFeed.body.stale, staleStream.status, staleStream.body.stale]).toEqual([
        200,
        true,
        200,
        true,
      ]);
      expect(staleStream.body.events.length).toBe(own.body.events.length);
    });

    it('OP-4 lists both audit routes in the OpenAPI document with their scope', async () => {
      const doc = await t.request({ method: 'GET', url: '/docs/openapi.json', token: null });
      expect(doc.body.paths['/v1/audit/events'].get['x-required-scope']).toBe('audit:read');
      expect(doc.body.paths['/v1/audit/streams/{streamId}'].get['x-required-scope']).toBe('audit:read');
    });
  });
}
