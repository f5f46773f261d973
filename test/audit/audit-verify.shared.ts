import { randomBytes } from 'node:crypto';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { auditVerify, formatReport, type VerifyReport } from '../../src/adapters/cli/audit-verify.js';
import { ThreadLogChecker } from '../../src/adapters/cli/audit-log-pass.js';
import { ensureBuilt } from '../../scripts/build-if-needed.js';
import { verifyLog } from '../../src/commands/audit/verify-log.js';
import { scratchSchemaFor } from '../../src/projections/audit/read-model-check.js';
import type { RecordedEvent } from '../../src/domain/ports/event-store.js';
import { executionStream, triggerStream } from '../../src/domain/shared/ids.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { wholeLog } from '../support/whole-log.js';
import { missionGrants } from '../support/grants.js';

/** The thread's entry as `reveille audit verify` starts it: from the build (jest runs the sources). */
const LOG_PASS_THREAD_BUILT = new URL('../../dist/src/adapters/cli/audit-log-pass-thread.js', import.meta.url);

const grants = missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 100 });

/**
 * AU-2 through `reveille audit verify`'s own function over the real store: a clean log passes; rows tampered with
 * in the events table (changed data, a deleted event, swapped revisions) and events a hostile writer appended past
 * the domain are each reported by rule, stream and position, and nothing else is.
 */
export function auditVerifySuite(kind: StoreKind): void {
  describe(`AU-2 audit verify (${kind})`, () => {
    let t: TestApp;
    const occurrences: string[] = [];
    const post = (url: string, body: unknown) => t.request({ method: 'POST', url, key: newKey(), body });
    const verify = (from?: number) => auditVerify(t.infra, { from });
    const stream = (streamId: string) => t.infra.store.readStream(streamId, { raw: true });
    const violations = (report: VerifyReport) =>
      report.listed.map(({ rule, streamId, position, revision }) => ({ rule, streamId, position, revision }));

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
      expect((await put('/v1/missions/m-1', { state: 'active', grants })).status).toBe(200);
      expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
      expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual', enabled: false })).status).toBe(200);
      expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const fired = await post('/v1/triggers/t-1/occurrences', { input: { n: i } });
        expect(fired.status).toBe(202);
        occurrences.push(fired.body.occurrenceId);
      }
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const [done, settled] = occurrences.map((id) => `x-${id}`);
      const claimed = await post(`/v1/executions/${done}/claim`, { consumerId: 'w-1' });
      expect(claimed.status).toBe(200);
      const completed = await post(`/v1/executions/${done}/complete`, {
        fence: claimed.body.fence,
        outcome: 'succeeded',
        receipt: { ok: 1 },
      });
      expect(completed.status).toBe(200);
      expect((await post(`/v1/executions/${settled}/claim`, { consumerId: 'w-2' })).status).toBe(200);
      expect((await post(`/v1/executions/${settled}/settle`, { settlementId: 's-1' })).body.decision).toBe(
        'noncommitted',
      );
      await t.catchUp();
    });
    afterAll(async () => {
      await t?.close();
    });

    /** Runs `work` on a copy of the events table's rows it touches, and puts them back afterwards. */
    async function tampered(
      positions: number[],
      tamper: () => Promise<void>,
      run: () => Promise<VerifyReport> = () => verify(),
    ): Promise<VerifyReport> {
      const saved = `tamper_${randomBytes(4).toString('hex')}`;
      await t.sql.query(`CREATE TABLE ${saved} AS SELECT * FROM events WHERE position = ANY($1::bigint[])`, [
        positions,
      ]);
      try {
        await tamper();
        const report = await run();
        // Exactly what the caller expects in `listed`: no read model differs, nothing is left unlisted.
        expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
        expect(report.violations).toBe(report.listed.length);
        expect(report.ok).toBe(false);
        return report;
      } finally {
        await t.sql.query('DELETE FROM events WHERE position = ANY($1::bigint[])', [positions]);
        await t.sql.query(`INSERT INTO events SELECT * FROM ${saved}`);
        await t.sql.query(`DROP TABLE ${saved}`);
      }
    }

    it('AU-2 passes a clean log: every event and stream checked, every read model equal to its rebuild', async () => {
      // The rebuild must not touch anything live: checkpoints (with their updated_at) and rows stay as they were.
      const liveState = async () => ({
        checkpoints: (await t.sql.query('SELECT * FROM checkpoints ORDER BY name')).rows,
        occurrences: (await t.sql.query('SELECT to_jsonb(o)::text AS row FROM rm_occurrences o ORDER BY 1')).rows,
        executions: (await t.sql.query('SELECT to_jsonb(e)::text AS row FROM rm_executions e ORDER BY 1')).rows,
      });
      const before = await liveState();
      const report = await verify();
      expect(await liveState()).toEqual(before);
      const log = await wholeLog(t.infra.store);
      expect(report).toMatchObject({ ok: true, violations: 0, byRule: {}, listed: [], from: 0 });
      expect(report.events).toBe(log.length);
      expect(report.streams).toBe(new Set(log.map((e) => e.streamId)).size);
      expect(report.readModels.length).toBeGreaterThanOrEqual(6);
      expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
      expect(report.readModels.find((table) => table.table === 'rm_occurrences')).toMatchObject({
        live: 3,
        rebuilt: 3,
      });
      expect(formatReport(report)).toContain('no violations');
      // Nothing of the scratch schema is left behind.
      // (Other suites verify their own schemas meanwhile: only this schema's scratch ones count.)
      const { rows: schema } = await t.sql.query<{ name: string }>('SELECT current_schema() AS name');
      const { rows } = await t.sql.query(`SELECT 1 FROM pg_namespace WHERE nspname LIKE $1`, [
        scratchSchemaFor(schema[0]!.name, '%'),
      ]);
      expect(rows).toEqual([]);
    });

    it('AU-2 a log read failing fails the verify: the rebuild folding its pages stops too, no scratch schema is left', async () => {
      const failing = new Proxy(t.infra.store, {
        get: (store, name) =>
          name === 'readAll' ? () => Promise.reject(new Error('log read failed')) : Reflect.get(store, name),
      });
      await expect(auditVerify({ ...t.infra, store: failing })).rejects.toThrow('log read failed');
      const { rows: schema } = await t.sql.query<{ name: string }>('SELECT current_schema() AS name');
      const { rows } = await t.sql.query(`SELECT 1 FROM pg_namespace WHERE nspname LIKE $1`, [
        scratchSchemaFor(schema[0]!.name, '%'),
      ]);
      expect(rows).toEqual([]);
    });

    it('AU-2 OP-3 hostile: a live read-model row changed or removed is read_model_mismatch naming its table and both sides', async () => {
      const executionId = `x-${occurrences[0]}`;
      const [row] = (
        await t.sql.query(`SELECT to_jsonb(e) AS row FROM rm_executions e WHERE execution_id = $1`, [executionId])
      ).rows as Array<{ row: { status: string } }>;
      expect(row!.row.status).toBe('completed');
      const saved = `tamper_${randomBytes(4).toString('hex')}`;
      await t.sql.query(`CREATE TABLE ${saved} AS SELECT * FROM rm_executions`);
      await t.sql.query(`CREATE TABLE ${saved}_o AS SELECT * FROM rm_occurrences`);
      try {
        // Completed work shown as pending again, and an Occurrence hidden from the explorer.
        await t.sql.query(`UPDATE rm_executions SET status = 'pending' WHERE execution_id = $1`, [executionId]);
        await t.sql.query(`DELETE FROM rm_occurrences WHERE occurrence_id = $1`, [occurrences[2]]);
        const report = await verify();
        expect(report.ok).toBe(false);
        expect(report.listed).toEqual([]);
        expect(report.byRule).toEqual({ read_model_mismatch: { count: 2, firstPositions: [] } });
        const differing = report.readModels.filter((table) => table.status !== 'equal');
        expect(differing.map(({ table, onlyLive, onlyRebuilt }) => ({ table, onlyLive, onlyRebuilt }))).toEqual([
          { table: 'rm_occurrences', onlyLive: 0, onlyRebuilt: 1 },
          { table: 'rm_executions', onlyLive: 1, onlyRebuilt: 1 },
        ]);
        const executions = differing.find((table) => table.table === 'rm_executions')!;
        expect(executions).toMatchObject({ status: 'differs', live: 3, rebuilt: 3 });
        expect(differing.find((table) => table.table === 'rm_occurrences')).toMatchObject({ live: 2, rebuilt: 3 });
        expect(executions.detail).toContain('only live: {');
        expect(executions.detail).toContain('"status": "pending"');
        expect(executions.detail).toContain('only rebuilt: {');
        expect(formatReport(report)).toContain(
          'violation read_model_mismatch: read model executions table rm_executions — 1 row(s) only live, 1 only rebuilt',
        );
      } finally {
        await t.sql.query(`DELETE FROM rm_executions`);
        await t.sql.query(`INSERT INTO rm_executions SELECT * FROM ${saved}`);
        await t.sql.query(`DELETE FROM rm_occurrences`);
        await t.sql.query(`INSERT INTO rm_occurrences SELECT * FROM ${saved}_o`);
        await t.sql.query(`DROP TABLE ${saved}, ${saved}_o`);
      }
    });

    it('AU-2 hostile: changed data in a stored row is hash_mismatch at that stream and position, nothing else', async () => {
      const [observed] = await stream(`occurrence-${occurrences[2]}`);
      const report = await tampered([observed!.position], async () => {
        await t.sql.query(`UPDATE events SET data = jsonb_set(data, '{input,n}', '99') WHERE position = $1`, [
          observed!.position,
        ]);
      });
      expect(report.ok).toBe(false);
      expect(violations(report)).toEqual([
        { rule: 'hash_mismatch', streamId: observed!.streamId, position: observed!.position, revision: 0 },
      ]);
      expect(report.byRule).toEqual({ hash_mismatch: { count: 1, firstPositions: [observed!.position] } });
      expect(formatReport(report)).toContain(
        `violation hash_mismatch: stream ${observed!.streamId} position ${observed!.position} revision 0`,
      );
    });

    it('AU-2 hostile: a deleted event is a revision gap and a broken prev_hash at the event after it', async () => {
      const [, second, third] = await stream(triggerStream('tenant-a', 't-1'));
      const report = await tampered([second!.position], async () => {
        await t.sql.query('DELETE FROM events WHERE position = $1', [second!.position]);
      });
      const at = { streamId: third!.streamId, position: third!.position, revision: 2 };
      expect(violations(report)).toEqual([
        { rule: 'revision_gap', ...at },
        { rule: 'prev_hash_mismatch', ...at },
      ]);
      expect(report.byRule).toEqual({
        revision_gap: { count: 1, firstPositions: [third!.position] },
        prev_hash_mismatch: { count: 1, firstPositions: [third!.position] },
      });
      expect(report.ok).toBe(false);
    });

    it('AU-2 hostile: two swapped revisions are reported at both rows', async () => {
      const [first, second] = await stream(triggerStream('tenant-a', 't-1'));
      const report = await tampered([first!.position, second!.position], async () => {
        const set = (from: number, to: number) =>
          t.sql.query('UPDATE events SET revision = $3 WHERE stream_id = $1 AND revision = $2', [
            first!.streamId,
            from,
            to,
          ]);
        await set(0, -1);
        await set(1, 0);
        await set(-1, 1);
      });
      const at = (e: RecordedEvent, revision: number) => ({ streamId: e.streamId, position: e.position, revision });
      expect(violations(report)).toEqual([
        { rule: 'revision_gap', ...at(first!, 1) },
        { rule: 'hash_mismatch', ...at(first!, 1) },
        { rule: 'revision_gap', ...at(second!, 0) },
        { rule: 'hash_mismatch', ...at(second!, 0) },
      ]);
    });

    describe('AU-2 the log pass in a thread of its own (as `reveille audit verify` runs it)', () => {
      const timings = ({ seconds, eventsPerSecond, readModelSeconds, ...report }: VerifyReport) => report;
      beforeAll(() => ensureBuilt());

      it('reports exactly what the pass reports in this thread, on a tampered log', async () => {
        const [, second] = await stream(triggerStream('tenant-a', 't-1'));
        const [observed] = await stream(`occurrence-${occurrences[2]}`);
        const positions = [second!.position, observed!.position];
        let here: VerifyReport | undefined;
        const there = await tampered(
          positions,
          async () => {
            await t.sql.query('DELETE FROM events WHERE position = $1', [second!.position]);
            await t.sql.query(`UPDATE events SET data = jsonb_set(data, '{input,n}', '99') WHERE position = $1`, [
              observed!.position,
            ]);
          },
          async () => {
            here = await verify();
            return auditVerify(t.infra, { logPassThread: LOG_PASS_THREAD_BUILT });
          },
        );
        expect(Object.keys(there.byRule).sort()).toEqual(['hash_mismatch', 'prev_hash_mismatch', 'revision_gap']);
        expect(timings(there)).toEqual(timings(here!));
      });

      it('AU-3 upcasters run in this thread: what they change and what they refuse reaches the pass', async () => {
        const upcast = (event: RecordedEvent): RecordedEvent => {
          if (event.type === 'ExecutionCompleted') throw new Error('no upcaster for this version');
          return event.type === 'TriggerRevised' ? { ...event, data: { ...(event.data as object) } } : event;
        };
        const here = await verifyLog(t.infra.store, { upcast });
        const checker = new ThreadLogChecker(upcast, LOG_PASS_THREAD_BUILT);
        try {
          const there = await verifyLog(t.infra.store, { upcast, checker });
          expect(there.byRule.replay_failed?.count).toBe(1);
          expect(there).toEqual(here);
        } finally {
          await checker.close();
        }
      });

      it('a thread that fails fails the pass instead of leaving it waiting', async () => {
        const broken = new URL('data:text/javascript,throw new Error("the log pass thread broke")');
        const checker = new ThreadLogChecker((event) => event, broken);
        try {
          await expect(verifyLog(t.infra.store, { checker, pageSize: 1 })).rejects.toThrow('the log pass thread broke');
        } finally {
          await checker.close();
        }
      });
    });

    it('AU-2 --from P checks only what follows P, with the streams before it as context', async () => {
      const log = await wholeLog(t.infra.store);
      const middle = log[Math.floor(log.length / 2)]!.position;
      const after = log.slice(Math.floor(log.length / 2) + 1);
      const report = await verify(middle);
      expect(report).toMatchObject({ ok: true, violations: 0, from: middle, events: after.length });
      // Pages of two: the next page is read while one is checked, and nothing is skipped or checked twice.
      for (const from of [0, middle])
        expect(await verifyLog(t.infra.store, { from, pageSize: 2 })).toMatchObject({
          violations: 0,
          events: from === 0 ? log.length : after.length,
        });
    });

    describe('AU-2 hostile writers past the domain (well-chained events the domain forbids)', () => {
      const forge = async (streamId: string, type: string, data: unknown) => {
        const [last] = (await stream(streamId)).slice(-1);
        return t.infra.store.append(
          streamId,
          [{ type, data, metadata: { tenant: 'tenant-a', actor: 'forger' } }],
          last!.revision,
        );
      };

      it('reports a second decision, a completion after noncommit, an unfenced claim and an unadmitted execution', async () => {
        const [, admitted] = await stream(`occurrence-${occurrences[0]}`);
        const second = await forge(admitted!.streamId, 'OccurrenceBlocked', {
          occurrenceId: occurrences[0],
          reason: 'mission_paused',
          evidence: {},
          decidedAt: admitted!.recordedAt,
        });
        const settledStream = executionStream(`x-${occurrences[1]}`);
        const settledEvents = await stream(settledStream);
        const claim = settledEvents.find((e) => e.type === 'ExecutionClaimed')!;
        const completion = await forge(settledStream, 'ExecutionCompleted', {
          ...(claim.data as object),
          outcome: 'succeeded',
          retryable: false,
          error: null,
          receipt: { forged: true },
        });
        const pendingStream = executionStream(`x-${occurrences[2]}`);
        const reclaim = await t.infra.store.append(
          pendingStream,
          [
            {
              type: 'ExecutionClaimed',
              data: { ...(claim.data as object), executionId: `x-${occurrences[2]}`, fence: 7 },
              metadata: { tenant: 'tenant-a' },
            },
          ],
          'no_stream',
        );
        const stray = `x-${'f'.repeat(64)}`;
        const orphan = await t.infra.store.append(
          executionStream(stray),
          [{ type: 'ExecutionClaimed', data: { ...(claim.data as object), executionId: stray }, metadata: {} }],
          'no_stream',
        );
        await t.catchUp();
        const report = await verify();
        const at = (r: { streamId: string; position: number; nextExpectedRevision: number }, rule: string) => ({
          rule,
          streamId: r.streamId,
          position: r.position,
          revision: r.nextExpectedRevision,
        });
        expect(violations(report)).toEqual([
          at(second, 'second_decision'),
          at(completion, 'completion_after_noncommit'),
          at(reclaim, 'claim_not_fenced'),
          at(orphan, 'execution_without_admission'),
        ]);
        expect(Object.keys(report.byRule).sort()).toEqual(
          ['claim_not_fenced', 'completion_after_noncommit', 'execution_without_admission', 'second_decision'].sort(),
        );
        expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
      });
    });
  });
}
