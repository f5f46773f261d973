import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import { type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { causalityFixture, CORRELATION_POINTER, until } from './causality-fixture.js';

const withKey = (key: string, extra: Record<string, unknown> = {}) => ({ meta: { correlation: key }, ...extra });

/** CA-1..CA-3 over HTTP: Operations, trusted correlation, loop and depth blocks. */
export function causalitySuite(kind: StoreKind): void {
  describe(`CA causality: Operations, trusted correlation, loop and depth blocks (${kind})`, () => {
    let t: TestApp;
    const f = causalityFixture(() => t);

    beforeAll(async () => {
      t = await startTestApp(kind);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('CA-2 CA-1 a verified callback carrying an Operation’s correlation key links to it: parent, depth 1, the bounded chain of references', async () => {
      const w = await f.world();
      const root = await w.deliver('a');
      const key = f.freshKey('k');
      const { operationId } = await f.actsWith(root, w.sourceId, key);
      const child = await w.deliver('b', withKey(key, { pr: 7 }));
      const detail = await f.decided(child);
      expect(detail.status).toBe('admitted');
      expect(detail.causal).toEqual({
        parentId: operationId,
        depth: 1,
        ancestry: [
          { occurrenceId: root, triggerId: w.triggers.a },
          { operationId, triggerId: w.triggers.a },
        ],
      });
      // references only: nothing of either payload is copied into the chain
      expect(JSON.stringify(detail.causal)).not.toContain('pr');
      expect((await f.decided(root)).causal).toEqual({ parentId: null, depth: 0, ancestry: [] });
      // The child's consumer receives the same chain in its claim body (api.md "ancestry").
      expect((await f.claimed(child)).ancestry).toEqual(detail.causal.ancestry);
    });

    it('CA-3 A → Operation → B → Operation → A is blocked causal_loop (a multi-Trigger cycle, not only a self-loop)', async () => {
      const w = await f.world();
      const a1 = await w.deliver('a');
      const k1 = f.freshKey('k1');
      await f.actsWith(a1, w.sourceId, k1);
      const b1 = await w.deliver('b', withKey(k1));
      const k2 = f.freshKey('k2');
      const op2 = await f.actsWith(b1, w.sourceId, k2);
      const a2 = await w.deliver('a', withKey(k2));
      const blocked = await f.decided(a2);
      expect([blocked.status, blocked.reason]).toEqual(['blocked', 'causal_loop']);
      expect(blocked.causal.parentId).toBe(op2.operationId);
      expect(blocked.causal.depth).toBe(2);
      expect(blocked.evidence).toMatchObject({ triggerId: w.triggers.a });
      expect(blocked.executionId ?? null).toBeNull();
    });

    it('CA-3 a self-loop (A → Operation → A) is blocked causal_loop as well', async () => {
      const w = await f.world();
      const a1 = await w.deliver('a');
      const key = f.freshKey('self');
      await f.actsWith(a1, w.sourceId, key);
      const again = await f.decided(await w.deliver('a', withKey(key)));
      expect([again.status, again.reason]).toEqual(['blocked', 'causal_loop']);
    });

    it('CA-3 a chain deeper than the Trigger’s causality.maxDepth is blocked causal_depth_exceeded', async () => {
      const w = await f.world({ triggers: { a: {}, b: {}, c: { causality: { maxDepth: 1 } } } });
      const a = await w.deliver('a');
      const k1 = f.freshKey('d1');
      await f.actsWith(a, w.sourceId, k1);
      const b = await w.deliver('b', withKey(k1));
      const k2 = f.freshKey('d2');
      await f.actsWith(b, w.sourceId, k2);
      const c = await f.decided(await w.deliver('c', withKey(k2)));
      expect([c.status, c.reason, c.causal.depth]).toEqual(['blocked', 'causal_depth_exceeded', 2]);
      expect(c.evidence).toMatchObject({ depth: 2, maxDepth: 1 });
    });

    it('CA-3 the Mission’s maxCausalDepth bounds every Trigger; a Trigger cannot raise it (422 authority_widening)', async () => {
      const w = await f.world({ maxCausalDepth: 1, triggers: { a: {}, b: {}, c: {} } });
      const widened = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${w.triggers.c}`,
        key: `k-${Date.now()}-widen`,
        body: { missionId: w.missionId, type: 'webhook', source: { sourceId: w.sourceId }, causality: { maxDepth: 3 } },
      });
      expect([widened.status, widened.body.code]).toEqual([422, 'authority_widening']);
      const a = await w.deliver('a');
      const k1 = f.freshKey('m1');
      await f.actsWith(a, w.sourceId, k1);
      const b = await w.deliver('b', withKey(k1));
      const k2 = f.freshKey('m2');
      await f.actsWith(b, w.sourceId, k2);
      const c = await f.decided(await w.deliver('c', withKey(k2)));
      expect([c.status, c.reason]).toEqual(['blocked', 'causal_depth_exceeded']);
    });

    it('CA-2 spoofed correlation never links: an unsigned source, a key naming no Operation, another source, payload-supplied ids', async () => {
      const signed = await f.world();
      const root = await signed.deliver('a');
      const key = f.freshKey('real');
      const op = await f.actsWith(root, signed.sourceId, key);
      const unknown = { parentId: null, depth: 0, ancestry: 'unknown' };

      // a key no Operation recorded
      const wrong = await f.decided(await signed.deliver('b', withKey(`${key}-forged`)));
      expect(wrong.causal).toEqual(unknown);
      // the Operation's id (or any internal id) as the correlation value is not its key
      const byId = await f.decided(await signed.deliver('b', withKey(op.operationId)));
      expect(byId.causal).toEqual(unknown);
      // payload-supplied parent / mission / operation ids without a correlation value: a plain root
      const forgedIds = await f.decided(
        await signed.deliver('b', {
          parentId: op.operationId,
          operationId: op.operationId,
          missionId: signed.missionId,
          occurrenceId: root,
          causal: {
            parentId: op.operationId,
            depth: 1,
            ancestry: [{ occurrenceId: root, triggerId: signed.triggers.a }],
          },
        }),
      );
      expect(forgedIds.causal).toEqual({ parentId: null, depth: 0, ancestry: [] });

      // the real key, but from an unsigned source: untrusted
      const unsigned = await f.world({ scheme: 'unsigned' });
      const unsignedRoot = await unsigned.deliver('a');
      const unsignedKey = f.freshKey('unsigned');
      await f.actsWith(unsignedRoot, unsigned.sourceId, unsignedKey);
      const forged = await f.decided(await unsigned.deliver('b', withKey(unsignedKey)));
      expect(forged.causal).toEqual(unknown);

      // the real key signed by another source of the tenant: the Operation expects it from its own source only
      const other = await f.world();
      const crossed = await f.decided(await other.deliver('b', withKey(key)));
      expect(crossed.causal).toEqual(unknown);

      const linked = await t.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved' AND data->'causal'->>'parentId' = $1`,
        [op.operationId],
      );
      expect(linked.rows[0]).toEqual({ n: 0 });
      expect(CORRELATION_POINTER).toBe('/meta/correlation');
    });

    it('CA-2 an Operation needs the current claim: a stale fence or an unclaimed execution is 409 fence_mismatch', async () => {
      const w = await f.world();
      const occurrenceId = await w.deliver('a');
      expect((await f.decided(occurrenceId)).status).toBe('admitted');
      const executionId = `x-${occurrenceId}`;
      const correlation = { sourceId: w.sourceId, key: f.freshKey('fence') };
      const unclaimed = await f.recordOperation(executionId, { fence: 1, operationId: 'op-early', correlation });
      expect([unclaimed.status, unclaimed.body.code]).toEqual([409, 'fence_mismatch']);
      const { fence } = await f.claimed(occurrenceId);
      const stale = await f.recordOperation(executionId, { fence: fence + 1, operationId: 'op-stale', correlation });
      expect([stale.status, stale.body.code]).toEqual([409, 'fence_mismatch']);
      const done = await t.request({
        method: 'POST',
        url: `/v1/executions/${executionId}/complete`,
        key: `k-${Date.now()}-done`,
        body: { fence, outcome: 'succeeded' },
      });
      expect(done.status).toBe(200);
      const late = await f.recordOperation(executionId, { fence, operationId: 'op-late', correlation });
      expect([late.status, late.body.code]).toEqual([409, 'fence_mismatch']);
      const events = await t.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type IN ('OperationRecorded', 'CorrelationReserved') AND data->>'executionId' = $1`,
        [executionId],
      );
      expect(events.rows[0]).toEqual({ n: 0 });
    });

    it('CA-2 a correlation that is missing, an array, null or a string is 400 at /correlation, and nothing is stored', async () => {
      const w = await f.world();
      const occurrenceId = await w.deliver('a');
      expect((await f.decided(occurrenceId)).status).toBe('admitted');
      const { executionId, fence } = await f.claimed(occurrenceId);
      for (const correlation of [undefined, [], null, 'gh', [{ sourceId: w.sourceId, key: 'k' }]]) {
        const body = { fence, operationId: 'op-hostile', ...(correlation === undefined ? {} : { correlation }) };
        const refused = await f.recordOperation(executionId, body as never);
        expect([JSON.stringify(correlation), refused.status, refused.body.code]).toEqual([
          JSON.stringify(correlation),
          400,
          'BAD_REQUEST',
        ]);
        expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/correlation');
      }
      const events = await t.sql.query(
        `SELECT count(*)::int AS n FROM events WHERE type IN ('OperationRecorded', 'CorrelationReserved') AND data->>'executionId' = $1`,
        [executionId],
      );
      expect(events.rows[0]).toEqual({ n: 0 });
      // The execution is still usable: a well-formed Operation is recorded.
      const recorded = await f.recordOperation(executionId, {
        fence,
        operationId: 'op-fine',
        correlation: { sourceId: w.sourceId, key: f.freshKey('fine') },
      });
      expect(recorded.status).toBe(201);
    });

    it('CA-2 an Operation is idempotent: the same key replays, the same id again changes nothing, another correlation or a taken key is 409', async () => {
      const w = await f.world();
      const first = await w.deliver('a');
      expect((await f.decided(first)).status).toBe('admitted');
      const { executionId, fence } = await f.claimed(first);
      const correlation = { sourceId: w.sourceId, key: f.freshKey('idem') };
      const body = { fence, operationId: 'op-1', correlation };
      const recorded = await f.recordOperation(executionId, body, `k-op-${correlation.key}`);
      expect(recorded.status).toBe(201);
      const replayed = await f.recordOperation(executionId, body, `k-op-${correlation.key}`);
      expect([replayed.status, replayed.headers['idempotency-replayed'], replayed.body]).toEqual([
        201,
        'true',
        recorded.body,
      ]);
      const again = await f.recordOperation(executionId, body);
      expect([again.status, again.body.position]).toEqual([201, recorded.body.position]);
      const repointed = await f.recordOperation(executionId, {
        ...body,
        correlation: { ...correlation, key: `${correlation.key}-2` },
      });
      expect([repointed.status, repointed.body.code]).toEqual([409, 'operation_conflict']);
      const taken = await f.recordOperation(executionId, { fence, operationId: 'op-2', correlation });
      expect([taken.status, taken.body.code]).toEqual([409, 'correlation_taken']);
      const malformed = await f.recordOperation(executionId, {
        fence,
        operationId: 'op-3',
        correlation: { sourceId: w.sourceId, key: 'x'.repeat(257) },
      });
      expect(malformed.status).toBe(400);
    });

    it('OP-2 CA-1 the lineage view: ancestors nearest first (bounded, with status), descendants paginated; another tenant sees 404', async () => {
      const w = await f.world({ triggers: { a: {}, b: {}, c: {} } });
      const a = await w.deliver('a');
      const k1 = f.freshKey('l1');
      const op1 = await f.actsWith(a, w.sourceId, k1);
      const b = await w.deliver('b', withKey(k1));
      const k2 = f.freshKey('l2');
      const op2 = await f.actsWith(b, w.sourceId, k2);
      const c = await w.deliver('c', withKey(k2));
      expect((await f.decided(c)).status).toBe('admitted');
      const lineage = (id: string, query = '') =>
        t.request({ method: 'GET', url: `/v1/operator/occurrences/${id}/lineage${query}` });

      const ofC = await lineage(c);
      expect(ofC.status).toBe(200);
      expect(ofC.body.ancestors).toEqual([
        { kind: 'operation', operationId: op2.operationId, triggerId: w.triggers.b, distance: 1 },
        { kind: 'occurrence', occurrenceId: b, triggerId: w.triggers.b, distance: 2, status: 'admitted', reason: null },
        { kind: 'operation', operationId: op1.operationId, triggerId: w.triggers.a, distance: 3 },
        { kind: 'occurrence', occurrenceId: a, triggerId: w.triggers.a, distance: 4, status: 'admitted', reason: null },
      ]);
      expect([ofC.body.descendants, ofC.body.operations, ofC.body.nextCursor]).toEqual([[], [], null]);

      const ofA = await until(async () => {
        const read = await lineage(a);
        return read.body.descendants?.length === 2 ? read : undefined;
      }, 'both descendants of the root');
      expect(ofA.body.ancestors).toEqual([]);
      expect(ofA.body.operations).toEqual([
        {
          operationId: op1.operationId,
          executionId: op1.executionId,
          correlation: { sourceId: w.sourceId, key: k1 },
          recordedAt: expect.any(String),
        },
      ]);
      expect(ofA.body.descendants).toEqual([
        expect.objectContaining({ occurrenceId: b, triggerId: w.triggers.b, parentId: op1.operationId, depth: 1 }),
        expect.objectContaining({ occurrenceId: c, triggerId: w.triggers.c, parentId: op2.operationId, depth: 2 }),
      ]);
      const first = await lineage(a, '?limit=1');
      expect(first.body.descendants.map((d: { occurrenceId: string }) => d.occurrenceId)).toEqual([b]);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const second = await lineage(a, `?limit=1&cursor=${first.body.nextCursor}`);
      expect([
        second.body.descendants.map((d: { occurrenceId: string }) => d.occurrenceId),
        second.body.nextCursor,
      ]).toEqual([[c], null]);
      expect((await lineage(a, '?cursor=forged')).status).toBe(400);
      expect((await lineage('o-missing')).status).toBe(404);
      const stranger = await t.request({
        method: 'GET',
        url: `/v1/operator/occurrences/${a}/lineage`,
        token: await t.token({ tenant: 'tenant-other' }),
      });
      expect(stranger.status).toBe(404);
    });

    it('CA-3 BA-1 CA-1 a batch execution carries every member’s causality: a cycle through a batch whose first member is a root is blocked causal_loop, and depth counts from the deepest member', async () => {
      const w = await f.world({
        triggers: { a: {}, b: {}, q: { batch: { size: 2 } }, c: { causality: { maxDepth: 2 } } },
      });
      // A root Occurrence opens the batch first; the causal child (depth 2, through a and b) joins it second.
      const root = await w.deliver('q');
      const a1 = await w.deliver('a');
      const k1 = f.freshKey('bq1');
      const op1 = await f.actsWith(a1, w.sourceId, k1);
      const b1 = await w.deliver('b', withKey(k1));
      const k2 = f.freshKey('bq2');
      const op2 = await f.actsWith(b1, w.sourceId, k2);
      const child = await w.deliver('q', withKey(k2));
      const [first, second] = [await f.decided(root), await f.decided(child)];
      expect([first.status, second.status]).toEqual(['batched', 'batched']);
      expect([first.executionId, second.executionId]).toEqual([`x-${root}`, `x-${root}`]);
      expect(second.causal.depth).toBe(2);

      // The claim shows the chain the batch's work descends from: the child member's, not the root's empty one.
      const claim = await f.claimed(root);
      expect(claim.ancestry).toEqual([
        { occurrenceId: a1, triggerId: w.triggers.a },
        { operationId: op1.operationId, triggerId: w.triggers.a },
        { occurrenceId: b1, triggerId: w.triggers.b },
        { operationId: op2.operationId, triggerId: w.triggers.b },
      ]);
      const k3 = f.freshKey('bq3');
      const loop = await f.recordOperation(claim.executionId, {
        fence: claim.fence,
        operationId: `op-${k3}`,
        correlation: { sourceId: w.sourceId, key: k3 },
      });
      expect(loop.status).toBe(201);
      const k4 = f.freshKey('bq4');
      const deep = await f.recordOperation(claim.executionId, {
        fence: claim.fence,
        operationId: `op-${k4}`,
        correlation: { sourceId: w.sourceId, key: k4 },
      });
      expect(deep.status).toBe(201);

      // a → b → q → a: the loop-back is linked at the deepest member's depth + 1 and blocked.
      const back = await f.decided(await w.deliver('a', withKey(k3)));
      expect([back.status, back.reason]).toEqual(['blocked', 'causal_loop']);
      expect(back.causal).toEqual({
        parentId: `op-${k3}`,
        depth: 3,
        ancestry: [
          ...(claim.ancestry as unknown[]),
          { occurrenceId: root, triggerId: w.triggers.q },
          { operationId: `op-${k3}`, triggerId: w.triggers.q },
        ],
      });
      // Depth 3 is past c's maxDepth 2 (a chain started at the root member alone would be depth 1).
      const tooDeep = await f.decided(await w.deliver('c', withKey(k4)));
      expect([tooDeep.status, tooDeep.reason]).toEqual(['blocked', 'causal_depth_exceeded']);

      // OP-2: either member's lineage shows the batch execution's Operations and their callbacks.
      const lineageOf = (id: string) =>
        until(async () => {
          const read = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${id}/lineage` });
          return read.body.descendants?.length === 2 ? read.body : undefined;
        }, `the descendants of ${id}`);
      for (const member of [root, child]) {
        const lineage = await lineageOf(member);
        expect(lineage.descendants.map((d: { parentId: string }) => d.parentId)).toEqual([`op-${k3}`, `op-${k4}`]);
        expect(lineage.operations.map((o: { operationId: string }) => o.operationId)).toEqual([`op-${k3}`, `op-${k4}`]);
        expect(lineage.runsAs).toBe(member === root ? undefined : root);
      }
    });

    it('CA-3 DD-5 CA-1 a coalesced group’s representative runs with every member’s causality: a root representative does not let a member’s cycle through', async () => {
      const coalesce = [{ match: { pointer: '/type', equals: 'g' }, mode: 'latest', windowMs: 1500 }];
      const w = await f.world({ triggers: { a: {}, g: { coalesce } } });
      const a1 = await w.deliver('a');
      const k1 = f.freshKey('cg1');
      const op1 = await f.actsWith(a1, w.sourceId, k1);
      // The causal child joins the group first; a root is its last member, so it is the one admitted.
      const member = await w.deliver('g', withKey(k1));
      const representative = await w.deliver('g');
      const decided = await f.decided(representative);
      expect([decided.status, (await f.decided(member)).status]).toEqual(['admitted', 'coalesced']);
      const claim = await f.claimed(representative);
      expect(claim.ancestry).toEqual([
        { occurrenceId: a1, triggerId: w.triggers.a },
        { operationId: op1.operationId, triggerId: w.triggers.a },
      ]);
      const k2 = f.freshKey('cg2');
      const recorded = await f.recordOperation(claim.executionId, {
        fence: claim.fence,
        operationId: `op-${k2}`,
        correlation: { sourceId: w.sourceId, key: k2 },
      });
      expect(recorded.status).toBe(201);
      const back = await f.decided(await w.deliver('a', withKey(k2)));
      expect([back.status, back.reason, back.causal.depth]).toEqual(['blocked', 'causal_loop', 2]);
    });

    it('CA-2 a correlation value that is present but unusable (empty, over-long, array, object, boolean, null) is recorded ancestry unknown, not a root; an absent one is a root', async () => {
      const w = await f.world();
      const unknown = { parentId: null, depth: 0, ancestry: 'unknown' };
      for (const value of ['', 'x'.repeat(257), ['k'], { key: 'k' }, true, null]) {
        const detail = await f.decided(await w.deliver('b', { meta: { correlation: value } }));
        expect([JSON.stringify(value).slice(0, 12), detail.causal]).toEqual([
          JSON.stringify(value).slice(0, 12),
          unknown,
        ]);
      }
      for (const payload of [{}, { meta: {} }, { meta: 'not an object' }])
        expect((await f.decided(await w.deliver('b', payload))).causal).toEqual({
          parentId: null,
          depth: 0,
          ancestry: [],
        });
    });

    it('OP-2 CA-2 the occurrence detail and the lineage of an untrusted correlation say ancestry unknown, with no ancestors', async () => {
      const w = await f.world();
      const forged = await w.deliver('b', withKey(f.freshKey('nobody')));
      expect((await f.decided(forged)).causal).toEqual({ parentId: null, depth: 0, ancestry: 'unknown' });
      const read = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${forged}/lineage` });
      expect([read.status, read.body.causal.ancestry, read.body.ancestors]).toEqual([200, 'unknown', []]);
    });

    // Last: the log now holds every causality event the suite wrote (Operations, correlation streams, links, blocks).
    it('AU-2 CA-2 audit verify passes a log with Operations, correlation streams and linked Occurrences; the lineage read model equals its rebuild', async () => {
      const written = await t.sql.query<{ type: string }>(
        `SELECT DISTINCT type FROM events WHERE type IN ('OperationRecorded', 'CorrelationReserved') ORDER BY type`,
      );
      expect(written.rows.map((r) => r.type)).toEqual(['CorrelationReserved', 'OperationRecorded']);
      // The app folds in the background: compared once every live read model stands where the rebuild ends.
      const report = await until(
        async () => {
          const run = await auditVerify(t.infra);
          return run.readModels.every((table) => table.status !== 'not_compared') ? run : undefined;
        },
        'the live read models to settle',
        60_000,
      );
      expect(report.listed).toEqual([]);
      expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
      expect(report.readModels.map((table) => table.table)).toEqual(
        expect.arrayContaining(['rm_causal_lineage', 'rm_causal_operations']),
      );
      expect(report.ok).toBe(true);
    });
  });
}
