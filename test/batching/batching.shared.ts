import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropSchema } from '../support/databases.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { until } from '../executions/retries.shared.js';
import { closeDueBatch } from '../../src/commands/admit-occurrence/close-batch.js';
import { post as postIngress, standardHeaders } from '../ingress/ingress-client.js';

const ENV = { REVEILLE_DELIVERY_POLL_MS: '100' };

/** One Mission and batching Trigger per test, and ways to fire into it and read what it decided. */
function batchFixture(get: () => TestApp) {
  const suffix = randomBytes(3).toString('hex');
  let n = 0;
  async function setup(batch: Record<string, unknown>, grants: Record<string, number> = {}) {
    n += 1;
    const missionId = `m-b${suffix}-${n}`;
    const triggerId = `t-b${suffix}-${n}`;
    const mission = await get().request({
      method: 'PUT',
      url: `/v1/missions/${missionId}`,
      key: newKey(),
      body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100, ...grants }) },
    });
    expect(mission.status).toBe(200);
    const trigger = await get().request({
      method: 'PUT',
      url: `/v1/triggers/${triggerId}`,
      key: newKey(),
      body: { expectedRevision: 0, missionId, type: 'manual', batch },
    });
    expect([trigger.status, trigger.body?.code]).toEqual([200, undefined]);
    return { missionId, triggerId };
  }
  async function fire(triggerId: string, input: Record<string, unknown>): Promise<string> {
    const fired = await get().request({
      method: 'POST',
      url: `/v1/triggers/${triggerId}/occurrences`,
      key: newKey(),
      body: { input },
    });
    expect(fired.status).toBe(202);
    return fired.body.occurrenceId as string;
  }
  const occurrence = async (id: string) =>
    (await get().request({ method: 'GET', url: `/v1/operator/occurrences/${id}` })).body;
  /** Every id decided (not `observed`), with the status and execution each got. */
  const decided = (ids: readonly string[], timeoutMs = 20_000) =>
    until(
      async () => {
        const rows = await Promise.all(ids.map(occurrence));
        // A problem body (404 before the explorer folded the Occurrence) has a numeric status.
        return rows.every((r) => typeof r.status === 'string' && r.status !== 'observed') ? rows : undefined;
      },
      'every member decided',
      timeoutMs,
    );
  const claimNext = (triggerId: string, waitSeconds = 0) =>
    get().request({
      method: 'POST',
      url: '/v1/executions/claim-next',
      key: newKey(),
      body: { consumerId: 'worker', triggerId, waitSeconds },
    });
  return { setup, fire, occurrence, decided, claimNext };
}

export function batchingSuite(kind: StoreKind): void {
  describe(`BA-1 batching over HTTP (${kind})`, () => {
    let t: TestApp;
    const f = batchFixture(() => t);
    beforeAll(async () => {
      t = await startTestApp(kind, { env: ENV });
    }, 60_000);
    afterAll(async () => {
      await t?.close();
    });

    it('BA-1 CP-1 wf.batching is claimed and a batch block is accepted', async () => {
      const caps = await t.request({ method: 'GET', url: '/v1/capabilities' });
      expect(caps.body.capabilities).toContain('wf.batching');
      const refused = await t.request({
        method: 'PUT',
        url: `/v1/triggers/t-too-big-${randomBytes(3).toString('hex')}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId: 'm-none', type: 'manual', batch: { size: 1001 } },
      });
      expect(refused.status).toBe(422);
    });

    it('BA-1 EX-1 EX-2 a full batch closes by size: every member batched, one execution, members and inputs in acceptance order', async () => {
      const { triggerId } = await f.setup({ size: 3, maxWaitMs: 600_000 });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await f.fire(triggerId, { n: i }));
      const rows = await f.decided(ids);
      expect(rows.map((r) => r.status)).toEqual(['batched', 'batched', 'batched']);
      const executionIds = new Set(rows.map((r) => r.executionId));
      expect(executionIds.size).toBe(1);
      const claimed = await until(async () => {
        const c = await f.claimNext(triggerId, 2);
        return c.status === 200 ? c : undefined;
      }, 'the batch execution claimable');
      expect(claimed.body.executionId).toBe([...executionIds][0]);
      expect(claimed.body.members).toEqual(ids);
      expect(claimed.body.input).toEqual({ members: [{ n: 0 }, { n: 1 }, { n: 2 }] });
      // Exactly one execution for the batch.
      expect((await f.claimNext(triggerId, 0)).status).toBe(204);
      const health = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
      await until(async () => {
        const h = await t.request({ method: 'GET', url: `/v1/operator/triggers/${triggerId}` });
        return h.body.counts?.batched === 3 ? h : undefined;
      }, 'health counts batched');
      expect(health.status).toBe(200);
      const list = await t.request({
        method: 'GET',
        url: `/v1/operator/occurrences?triggerId=${triggerId}&status=batched`,
      });
      expect(list.status).toBe(200);
    });

    it('BA-1 maxWaitMs closes a partial batch once its deadline passed, never before; partitions are independent', async () => {
      // 3 s: the three fires must land inside one window even on a loaded machine (at 1.5 s a run under load 9 split a/1, a/2)
      const { triggerId } = await f.setup({ size: 10, maxWaitMs: 3000, partitionPointer: '/repo' });
      const a1 = await f.fire(triggerId, { repo: 'a', n: 1 });
      const b1 = await f.fire(triggerId, { repo: 'b', n: 1 });
      const a2 = await f.fire(triggerId, { repo: 'a', n: 2 });
      const rows = await f.decided([a1, b1, a2]);
      expect(rows.map((r) => r.status)).toEqual(['batched', 'batched', 'batched']);
      expect(rows[0].executionId).toBe(rows[2].executionId);
      expect(rows[1].executionId).not.toBe(rows[0].executionId);
      for (const row of rows) {
        // decided no earlier than maxWaitMs after the batch's first member was accepted
        const first = rows.find((r) => r.executionId === row.executionId)!;
        expect(
          Date.parse(row.decidedAt ?? row.firedAt ?? first.observedAt) - Date.parse(first.observedAt),
        ).toBeGreaterThanOrEqual(3000);
      }
      const claims = [
        await until(async () => {
          const c = await f.claimNext(triggerId, 2);
          return c.status === 200 ? c : undefined;
        }, 'first batch'),
      ];
      claims.push(
        await until(async () => {
          const c = await f.claimNext(triggerId, 2);
          return c.status === 200 ? c : undefined;
        }, 'second batch'),
      );
      const byMembers = Object.fromEntries(claims.map((c) => [c.body.members.join(','), c.body.input]));
      expect(byMembers[[a1, a2].join(',')]).toEqual({
        members: [
          { repo: 'a', n: 1 },
          { repo: 'a', n: 2 },
        ],
      });
      expect(byMembers[b1]).toEqual({ members: [{ repo: 'b', n: 1 }] });
    });

    it('BA-1 ?wait=decision answers batched with the execution once the fire that fills the batch is decided', async () => {
      const { triggerId } = await f.setup({ size: 2 });
      const first = await f.fire(triggerId, { n: 1 });
      const filled = await t.request({
        method: 'POST',
        url: `/v1/triggers/${triggerId}/occurrences?wait=decision`,
        key: newKey(),
        body: { input: { n: 2 } },
      });
      expect([filled.status, filled.body.status]).toEqual([200, 'batched']);
      expect(filled.body.executionId).toBe(`x-${first}`);
    });

    it('BA-1 BA-2 a partition key that is an object is blocked guard_fault and joins nothing', async () => {
      const { triggerId } = await f.setup({ size: 2, partitionPointer: '/repo' });
      const id = await f.fire(triggerId, { repo: { nested: true } });
      const [row] = await f.decided([id]);
      expect([row.status, row.reason]).toEqual(['blocked', 'guard_fault']);
    });

    it('BA-1 AD-2 a batch closing while its Mission is paused blocks every member with mission_paused', async () => {
      const { triggerId, missionId } = await f.setup({ maxWaitMs: 1200 });
      const ids = [await f.fire(triggerId, { n: 1 }), await f.fire(triggerId, { n: 2 })];
      const paused = await t.request({
        method: 'PUT',
        url: `/v1/missions/${missionId}`,
        key: newKey(),
        body: { state: 'paused', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 }) },
      });
      expect(paused.status).toBe(200);
      const rows = await f.decided(ids);
      // A member admitted before the pause joined the batch; the batch itself is refused as a whole at its close.
      for (const row of rows) expect([row.status, row.reason]).toEqual(['blocked', 'mission_paused']);
      // OP-2: `evidence.members` is the batch's ids (as for an admitted batch, on its first member), never a count.
      expect([rows[0].evidence.members, rows[0].members, rows[1].evidence.members]).toEqual([ids, ids, undefined]);
      expect(rows[1].evidence.batchId).toBe(rows[0].evidence.batchId);
    });

    it('WH-3 AD-2 BA-1 a member whose key was retired while its batch was open is blocked key_revoked at the close; the others still run', async () => {
      const write = (method: string, url: string, body: unknown) => t.request({ method, url, key: newKey(), body });
      const { missionId } = await f.setup({ size: 5 });
      const sourceId = `s-bk-${randomBytes(3).toString('hex')}`;
      expect((await write('PUT', `/v1/sources/${sourceId}`, { scheme: 'standard-webhooks' })).status).toBe(200);
      const current = await write('POST', `/v1/sources/${sourceId}/keys`, { keyId: 'k1' });
      const retiring = await write('POST', `/v1/sources/${sourceId}/keys`, { keyId: 'k2' });
      expect([current.status, retiring.status]).toEqual([201, 201]);
      const triggerId = `t-bk-${randomBytes(3).toString('hex')}`;
      const put = await write('PUT', `/v1/triggers/${triggerId}`, {
        missionId,
        type: 'webhook',
        source: { sourceId, eventTypes: ['e'] },
        batch: { maxWaitMs: 1500, partitionPointer: '/p' },
      });
      expect(put.status).toBe(200);
      const deliver = async (secret: string, p: string) => {
        const body = JSON.stringify({ type: 'e', p, id: randomBytes(6).toString('hex') });
        const answer = await postIngress(t, sourceId, body, standardHeaders(secret, body));
        expect(answer.status).toBe(202);
        return answer.body.occurrences[0].occurrenceId as string;
      };
      const kept = await deliver(current.body.secret, 'a');
      const revoked = await deliver(retiring.body.secret, 'a');
      const alone = await deliver(retiring.body.secret, 'b');
      // Each joined its batch (authenticated by a live key then) before the key is retired.
      await until(async () => {
        const joined = await t.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceBatchJoined' AND data->>'occurrenceId' = ANY($1)`,
          [[kept, revoked, alone]],
        );
        return joined.rows[0]!.n === 3;
      }, 'every member joined');
      expect((await write('DELETE', `/v1/sources/${sourceId}/keys/k2`, {})).status).toBe(200);

      const [a, b, c] = await f.decided([kept, revoked, alone]);
      expect([a.status, a.executionId]).toEqual(['batched', `x-${kept}`]);
      expect([b.status, b.reason, b.executionId ?? null]).toEqual(['blocked', 'key_revoked', null]);
      expect(b.evidence).toMatchObject({ sourceId, keyId: 'k2', keyGeneration: 2 });
      expect([c.status, c.reason, c.executionId ?? null]).toEqual(['blocked', 'key_revoked', null]);
      // The batch's one execution runs for the member whose key still stands, alone.
      const claim = await t.request({
        method: 'POST',
        url: `/v1/executions/x-${kept}/claim`,
        key: newKey(),
        body: { consumerId: 'worker' },
      });
      expect([claim.status, claim.body.members]).toEqual([200, [kept]]);
    });
  });
}

export function batchRestartSuite(kind: StoreKind): void {
  describe(`BA-1 open batches across a restart and racing closers (${kind})`, () => {
    it('BA-1 a batch open at a restart is closed once by the next app, at its deadline and not before', async () => {
      const database = kind === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : mkdtempSync(join(tmpdir(), 'rv-'));
      let t = await startTestApp(kind, { env: ENV, database });
      const f = batchFixture(() => t);
      try {
        const { triggerId } = await f.setup({ size: 50, maxWaitMs: 3000 });
        const ids = [await f.fire(triggerId, { n: 1 }), await f.fire(triggerId, { n: 2 })];
        await until(async () => {
          const rows = await t.sql.query<{ n: string }>({
            text: `SELECT count(*) AS n FROM rm_open_batches WHERE trigger_id = $1`,
            values: [triggerId],
          });
          return Number(rows.rows[0]!.n) === 1;
        }, 'the batch opened');
        await t.close();
        t = await startTestApp(kind, { env: ENV, database });
        const rows = await f.decided(ids);
        expect(rows.map((r) => r.status)).toEqual(['batched', 'batched']);
        expect(
          Date.parse(rows[0].decidedAt ?? rows[1].decidedAt) - Date.parse(rows[0].observedAt),
        ).toBeGreaterThanOrEqual(3000);
        const claimed = await until(async () => {
          const c = await f.claimNext(triggerId, 2);
          return c.status === 200 ? c : undefined;
        }, 'the batch execution');
        expect(claimed.body.members).toEqual(ids);
        expect((await f.claimNext(triggerId, 0)).status).toBe(204);
      } finally {
        await t.close();
        if (kind === 'postgres') await dropSchema(database);
      }
    }, 60_000);

    /**
     * Nothing runs in the background: two fires join one batch (admitted by hand), and its deadline passes, so
     * the partition's open batch is due for a close the test makes itself.
     */
    async function dueBatch(t: TestApp) {
      const f = batchFixture(() => t);
      const { triggerId } = await f.setup({ size: 50, maxWaitMs: 300 });
      const ids = [await f.fire(triggerId, { n: 1 }), await f.fire(triggerId, { n: 2 })];
      await t.catchUp();
      const { AdmitOccurrenceCommand } =
        await import('../../src/commands/admit-occurrence/admit-occurrence.command.js');
      const { CommandBus } = await import('@nestjs/cqrs');
      const { occurrenceStream } = await import('../../src/domain/shared/ids.js');
      for (const id of ids) await t.app.get(CommandBus).execute(new AdmitOccurrenceCommand(occurrenceStream(id)));
      await t.catchUp();
      const due = await t.sql.query<{ batch_stream: string }>({
        text: `SELECT batch_stream FROM rm_open_batches WHERE trigger_id = $1`,
        values: [triggerId],
      });
      await new Promise((r) => setTimeout(r, 400));
      return { store: t.infra.store, streamId: due.rows[0]!.batch_stream };
    }

    it('BA-1 two closers racing on one due batch: one closes it, one execution', async () => {
      const t = await startTestApp(kind, { env: ENV, autostart: false });
      try {
        const { store, streamId } = await dueBatch(t);
        const results = await Promise.all([closeDueBatch(store, streamId), closeDueBatch(store, streamId)]);
        expect(results.filter((r) => r.closed)).toHaveLength(1);
        const again = await closeDueBatch(store, streamId);
        expect(again.closed).toBe(false);
      } finally {
        await t.close();
      }
    }, 60_000);

    it('BA-1 a closer that read the open batch just before another closed it reads again and finds it closed (no crash, one execution)', async () => {
      const t = await startTestApp(kind, { env: ENV, autostart: false });
      try {
        const { store, streamId } = await dueBatch(t);
        // The late closer's first read of the members waits until the other closer has closed the batch.
        let other: Awaited<ReturnType<typeof closeDueBatch>> | null = null;
        const late = new Proxy(store, {
          get(target, prop) {
            const value = Reflect.get(target, prop, target) as unknown;
            if (prop === 'readStreams' && typeof value === 'function')
              return async (...args: unknown[]) => {
                other ??= await closeDueBatch(store, streamId);
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              };
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
        const lateResult = await closeDueBatch(late, streamId);
        expect(other).toMatchObject({ closed: true });
        expect(lateResult.closed).toBe(false);
        const closed = (await store.readStream(streamId)).filter((e) => e.type === 'BatchClosed');
        expect(closed).toHaveLength(1);
      } finally {
        await t.close();
      }
    }, 60_000);
  });
}
