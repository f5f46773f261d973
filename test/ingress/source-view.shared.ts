import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { post, standardHeaders, webhookSetup } from './ingress-client.js';

/** WH-9 OP-1: what reached a source — accepted, duplicate, ignored and refused by reason — never vanishes. */
export function sourceViewSuite(kind: StoreKind): void {
  describe(`operator source view (${kind})`, () => {
    let t: TestApp;
    const view = async (sourceId: string, token?: string) =>
      t.request({ method: 'GET', url: `/v1/operator/sources/${sourceId}`, token });

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('WH-9 a signed delivery no Trigger subscribes to is counted ignored on its source, not lost from every view', async () => {
      const token = await t.token({ tenant: 'tenant-a' });
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), token, body });
      expect((await put('/v1/sources/s-lonely', { scheme: 'standard-webhooks' })).status).toBe(200);
      const key = await t.request({ method: 'POST', url: '/v1/sources/s-lonely/keys', key: newKey(), token, body: {} });
      expect(key.status).toBe(201);
      for (const id of ['msg_l1', 'msg_l2']) {
        const body = JSON.stringify({ type: 'push', id });
        // "No subscriber" is answered only once the bindings have folded the log's head (WH-7); this app folds by hand.
        await t.catchUp();
        const answer = await post(t, 's-lonely', body, standardHeaders(key.body.secret, body, { id }));
        expect(answer).toMatchObject({ status: 202, body: { occurrences: [] } });
      }
      const shown = await view('s-lonely', token);
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({
        sourceId: 's-lonely',
        counts: { accepted: 0, duplicate: 0, ignored: 2, refused: {} },
        lastAcceptedAt: null,
        lastIgnoredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    });

    it('WH-9 accepted and duplicate deliveries, and refusals by reason with their sampled metadata (never a body)', async () => {
      const s = await webhookSetup(t, 'counted');
      const body = JSON.stringify({ type: 'push', id: 'evt-1', secretish: 'do-not-echo' });
      const headers = standardHeaders(s.secret, body, { id: 'msg_c1' });
      expect((await post(t, s.sourceId, body, headers)).status).toBe(202);
      expect((await post(t, s.sourceId, body, headers)).status).toBe(200);
      const forged = { ...standardHeaders(s.secret, body, { id: 'msg_c2' }), 'webhook-signature': 'v1,AAAA' };
      expect((await post(t, s.sourceId, body, forged)).status).toBe(401);
      expect((await post(t, s.sourceId, body, {})).status).toBe(401);
      const shown = await view(s.sourceId, s.token);
      expect(shown.status).toBe(200);
      expect(shown.body.counts).toEqual({
        accepted: 1,
        duplicate: 1,
        ignored: 0,
        refused: { signature_invalid: 1, signature_missing: 1 },
      });
      expect(shown.body.lastRefusedAt).toEqual(expect.any(String));
      expect(shown.body.recentRefusals).toEqual(
        expect.arrayContaining([
          { reason: 'signature_invalid', status: 401, size: body.length, at: expect.any(String) },
          { reason: 'signature_missing', status: 401, size: body.length, at: expect.any(String) },
        ]),
      );
      expect(JSON.stringify(shown.body)).not.toContain('do-not-echo');
    });

    it('WH-1 a body declared over the source limit is counted refused payload_too_large before it is read', async () => {
      const s = await webhookSetup(t, 'small', { source: { maxBodyBytes: 1024 } });
      const big = JSON.stringify({ pad: 'x'.repeat(4096) });
      expect((await post(t, s.sourceId, big, standardHeaders(s.secret, big))).status).toBe(413);
      expect((await view(s.sourceId, s.token)).body.counts.refused).toEqual({ payload_too_large: 1 });
    });

    it('OP-1 a webhook Trigger health row shows its source latest authentication and counts redeliveries', async () => {
      const s = await webhookSetup(t, 'health');
      const health = async () =>
        (await t.request({ method: 'GET', url: `/v1/operator/triggers/${s.triggerId}`, token: s.token })).body;
      expect(await health()).toMatchObject({ auth: null, counts: { duplicate: 0 } });
      const body = JSON.stringify({ type: 'push', id: 'evt-h' });
      const headers = standardHeaders(s.secret, body, { id: 'msg_h1' });
      expect((await post(t, s.sourceId, body, headers)).status).toBe(202);
      expect((await post(t, s.sourceId, body, headers)).status).toBe(200);
      expect((await post(t, s.sourceId, body, headers)).status).toBe(200);
      const verified = await health();
      expect(verified).toMatchObject({
        auth: { lastResult: 'verified', keyId: expect.any(String), reason: null, at: expect.any(String) },
        counts: { duplicate: 2 },
      });
      const forged = { ...standardHeaders(s.secret, body, { id: 'msg_h2' }), 'webhook-signature': 'v1,AAAA' };
      expect((await post(t, s.sourceId, body, forged)).status).toBe(401);
      const failed = await health();
      expect(failed.auth).toMatchObject({ lastResult: 'failed', keyId: null, reason: 'signature_invalid' });
      expect(failed.counts.duplicate).toBe(2);
      const listed = await t.request({ method: 'GET', url: '/v1/operator/triggers', token: s.token });
      const row = listed.body.items.find((r: { triggerId: string }) => r.triggerId === s.triggerId);
      expect(row).toMatchObject({ auth: { lastResult: 'failed' }, counts: { duplicate: 2 } });
    });

    it('OP-1 a webhook Trigger whose deliveries fail authentication since the last success is failing, on both routes, until one verifies', async () => {
      const s = await webhookSetup(t, 'failing');
      const health = async () => {
        const single = await t.request({ method: 'GET', url: `/v1/operator/triggers/${s.triggerId}`, token: s.token });
        const listed = await t.request({ method: 'GET', url: '/v1/operator/triggers', token: s.token });
        const row = listed.body.items.find((r: { triggerId: string }) => r.triggerId === s.triggerId);
        expect(row.health).toBe(single.body.health);
        return single.body.health as string;
      };
      const body = JSON.stringify({ type: 'push', id: 'evt-f' });
      expect((await post(t, s.sourceId, body, standardHeaders(s.secret, body, { id: 'msg_f1' }))).status).toBe(202);
      expect(await health()).toBe('ok');
      for (const id of ['msg_f2', 'msg_f3']) {
        const forged = { ...standardHeaders(s.secret, body, { id }), 'webhook-signature': 'v1,AAAA' };
        expect((await post(t, s.sourceId, body, forged)).status).toBe(401);
      }
      expect(await health()).toBe('failing');
      expect((await post(t, s.sourceId, body, standardHeaders(s.secret, body, { id: 'msg_f4' }))).status).toBe(202);
      expect(await health()).toBe('ok');
    });

    it('SEC-2 another tenant sees a plain 404; an unknown source is 404 and a malformed id 400', async () => {
      const s = await webhookSetup(t, 'private');
      expect((await view(s.sourceId, await t.token({ tenant: 'tenant-b' }))).status).toBe(404);
      expect((await view('s-never-created', s.token)).status).toBe(404);
      expect((await view('bad%00id', s.token)).status).toBe(400);
      expect((await view(s.sourceId, await t.token({ tenant: 'tenant-a', scope: 'triggers:write' }))).status).toBe(403);
    });
  });
}
