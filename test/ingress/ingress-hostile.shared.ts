import fc from 'fast-check';
import { type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { post, standardHeaders, webhookSetup } from './ingress-client.js';

export function ingressHostileSuite(kind: StoreKind): void {
  describe(`WH hostile ingress (${kind})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('WH-2 WH-4 fuzz: random and mutated requests never cause a 5xx and never an occurrence from an unverified request', async () => {
      const s = await webhookSetup(t, 'fuzz', { source: { rateLimit: { perSecond: 10_000, burst: 10_000 } } });
      const mutation = fc.oneof(
        fc.record({ kind: fc.constant('body' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
        fc.record({
          kind: fc.constant('header' as const),
          name: fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'),
          value: fc.string({ maxLength: 80 }),
        }),
        fc.record({
          kind: fc.constant('drop' as const),
          name: fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'),
        }),
        fc.record({ kind: fc.constant('garbage' as const), body: fc.uint8Array({ maxLength: 300 }) }),
      );
      const seenStatuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          fc.json({ maxDepth: 3 }),
          fc.array(mutation, { minLength: 1, maxLength: 3 }),
          async (json, mutations) => {
            const original = JSON.stringify({ type: 'push', id: 'fz', payload: JSON.parse(json) });
            let body = Buffer.from(original);
            const headers: Record<string, string> = {
              ...standardHeaders(s.secret, original),
              'content-type': 'application/json',
            };
            for (const m of mutations) {
              if (m.kind === 'body' && body.length > 0) body[m.at % body.length] ^= m.byte || 1;
              if (m.kind === 'garbage') body = Buffer.from(m.body);
              if (m.kind === 'header') headers[m.name] = m.value.replace(/[^\x20-\x7e]/g, '');
              if (m.kind === 'drop') delete headers[m.name];
            }
            const response = await post(t, s.sourceId, body, headers);
            seenStatuses.add(response.status);
            expect(response.status).toBeLessThan(500);
            const verifiedCopy = body.equals(Buffer.from(original)) && headers['webhook-signature'] !== undefined;
            if (response.status === 202 || response.status === 200) {
              expect(verifiedCopy).toBe(true);
            }
          },
        ),
        { numRuns: 150 },
      );
      const forged = await t.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved' AND data->'auth'->>'sourceId' = $1 AND data->'auth'->>'state' <> 'verified'`,
        [s.sourceId],
      );
      expect(forged.rows[0]).toEqual({ n: 0 });
      expect([...seenStatuses].some((status) => status === 401 || status === 400)).toBe(true);
    });

    it('WH-1 SEC-4 signed but hostile JSON (deep, 1e999, U+0000, lone surrogates) is 400 malformed_request, nothing appended', async () => {
      const s = await webhookSetup(t, 'hostile-json', { source: { rateLimit: { perSecond: 10_000, burst: 10_000 } } });
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      const attacks: Array<[string, string]> = [
        ['nested 10,000 deep', nested(10_000)],
        ['nested 100,000 deep', nested(100_000)],
        ['1e999', '1e999'],
        ['-1e999', '-1e999'],
        ['U+0000', '"a\\u0000b"'],
        ['unpaired surrogate', '"x\\ud800"'],
      ];
      const bodies = [
        ...attacks.map(([label, value]) => [label, `{"type":"push","id":"h","x":${value}}`] as const),
        ['U+0000 in a member name', '{"type":"push","id":"h","k\\u0000":1}'] as const,
        ['a top-level document 100,000 deep', nested(100_000)] as const,
      ];
      for (const [label, body] of bodies) {
        const response = await post(t, s.sourceId, body, standardHeaders(s.secret, body));
        expect({ label, status: response.status, code: response.body?.code }).toEqual({
          label,
          status: 400,
          code: 'malformed_request',
        });
      }
      const stored = await t.sql.query(`SELECT count(*)::int AS n FROM events WHERE data->'auth'->>'sourceId' = $1`, [
        s.sourceId,
      ]);
      expect(stored.rows[0]).toEqual({ n: 0 });
    });

    it('WH-9 rejected attempts leave only bounded, sampled metadata: no bodies, no signatures', async () => {
      const s = await webhookSetup(t, 'audit', { source: { rateLimit: { perSecond: 10_000, burst: 10_000 } } });
      const before = Number(
        (await t.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ingress_audit')).rows[0]!.n,
      );
      const secretBody = JSON.stringify({ type: 'push', id: 'attack', marker: 'ATTACKER-CONTENT-42' });
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          post(t, s.sourceId, secretBody, {
            'webhook-id': `a${i}`,
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': 'v1,SIGNATURE-MARKER',
          }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rows = (
        await t.sql.query<{ source_id: string; reason: string; status: number; size: number }>(
          'SELECT * FROM ingress_audit WHERE source_id = $1',
          [s.sourceId],
        )
      ).rows;
      // The sample is a token bucket of 5 with 5 more a second: the bound grows with the burst's duration (a
      // loaded machine took 2.5 s for the 60 requests), and stays well below one row per attempt.
      const sampledAtMost = 5 + Math.ceil((5 * (Date.now() - started)) / 1000);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThanOrEqual(Math.min(sampledAtMost, 59));
      expect(rows[0]).toMatchObject({ reason: 'signature_invalid', status: 401, size: Buffer.byteLength(secretBody) });
      const dump = JSON.stringify((await t.sql.query('SELECT * FROM ingress_audit')).rows);
      expect(dump).not.toContain('ATTACKER-CONTENT-42');
      expect(dump).not.toContain('SIGNATURE-MARKER');
      // Nothing beyond the sample anywhere else either (the same duration-bound, not a constant a slow run exceeds).
      expect(
        Number((await t.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM ingress_audit')).rows[0]!.n) - before,
      ).toBeLessThanOrEqual(Math.min(sampledAtMost, 59));
    });
  });
}

/** Last: it stops the database under the running app. */
export function ingressOutageSuite(kind: StoreKind): void {
  describe(`WH-7 ingress with the store down (${kind})`, () => {
    it('answers 503 store_unavailable with Retry-After, so the producer retries', async () => {
      const t = await startTestApp(kind, { autostart: false });
      try {
        const s = await webhookSetup(t, 'down');
        const body = JSON.stringify({ type: 'push', id: 'd' });
        await t.sql.close();
        const response = await post(t, s.sourceId, body, standardHeaders(s.secret, body));
        expect(response.status).toBe(503);
        expect(response.body.code).toBe('store_unavailable');
        expect(response.headers['retry-after']).toBeDefined();
      } finally {
        await t.close().catch(() => undefined);
      }
    });
  });
}
