import { type ServeProcess, startServe } from '../support/serve-process.js';

const GRANTS = {
  maxExecutionsPerHour: 100,
  maxConcurrent: 10,
  resourceScopes: [],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

/** OP-4: a load balancer may send traffic on the first 2xx of /health/ready; by then the background must run. */
describe.each(['thread', 'on'] as const)(
  'OP-4 readiness of `reveille serve` (REVEILLE_BACKGROUND=%s)',
  (background) => {
    let serve: ServeProcess;

    beforeAll(async () => {
      serve = await startServe({
        background,
        scope: 'missions:write triggers:write occurrences:write operator:read',
        env: { HOST: '0.0.0.0' },
      });
    }, 180_000);
    afterAll(async () => {
      await serve?.close();
    });

    it('OP-4 ready only once the background runs: a 503 before names what it waits for, 200 ok after', () => {
      const seen = serve.readiness;
      expect(seen.at(-1)).toMatchObject({
        status: 200,
        body: { status: 'ok', info: { background: { status: 'up' } } },
      });
      // No 2xx before the one that ended the wait: everything before it was a 503 naming the background.
      for (const early of seen.slice(0, -1)) {
        expect(early.status).toBe(503);
        expect(early.body.error.background ?? early.body.error.store).toBeDefined();
      }
      if (background === 'thread') {
        // Each worker thread builds a whole application: the HTTP listener answers long before they are up.
        const waiting = seen.find((s) => s.body.error?.background);
        expect(waiting?.body.error.background).toMatchObject({ status: 'down', reason: 'background starting' });
        const waitingFor: string[] = waiting!.body.error.background.waitingFor;
        expect(waitingFor.length).toBeGreaterThan(0);
        expect(['background-thread', 'poller-thread']).toEqual(expect.arrayContaining(waitingFor));
      }
    });

    it('OP-4 the first ?wait=decision fire after readiness is decided in time (200 admitted, not 202)', async () => {
      expect((await serve.call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
      expect((await serve.call('PUT', '/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
      const fired = await serve.call('POST', '/v1/triggers/t-1/occurrences?wait=decision', { input: { n: 1 } });
      expect(fired.status).toBe(200);
      expect(fired.body).toMatchObject({ status: 'admitted', reason: null });
    });

    it('OP-4 prints the address it bound (HOST=0.0.0.0), not a loopback it did not choose', () => {
      expect(serve.stderr()).toMatch(/Reveille listening on http:\/\/0\.0\.0\.0:\d+ \(every interface\)/);
      expect(serve.stderr()).not.toMatch(/listening on http:\/\/127\.0\.0\.1/);
    });

    it('OP-4 after a crash, a restart is again 503 until its background runs and has caught up', async () => {
      await serve.restart();
      expect(serve.readiness.at(-1)).toMatchObject({ status: 200, body: { status: 'ok' } });
      // Listed rather than counted: a 200 "degraded" before "ok" names the part that failed a pass (seen once).
      expect(serve.readiness.slice(0, -1).filter((s) => s.status !== 503)).toEqual([]);
      const shown = await serve.call('GET', '/v1/operator/triggers/t-1');
      expect(shown.status).toBe(200);
      expect(shown.body).toMatchObject({ counts: { observed: 1, admitted: 1 } });
    }, 120_000);
  },
);
