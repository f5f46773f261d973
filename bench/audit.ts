/**
 * Audit verify (AU-2) over a large log: N manual Occurrences of one Trigger, each observed and admitted, and a
 * share of them claimed and completed (so 2 events per Occurrence plus 2 per execution), written with the
 * store's batch append. Then, interleaved `--rounds` times:
 *
 * - raw COPY: `COPY (SELECT * FROM events ORDER BY transaction_id, position) TO '/dev/null'` on the server — the
 *   floor of reading the log in order (no network, no parsing);
 * - raw pages: the store's readAll pages (as stored), parsed by node but not checked;
 * - verify (log): `audit verify`'s log pass — chains, domain replay and invariants;
 * - verify (all): the whole command, read models rebuilt into a scratch schema and compared beside the log pass;
 * - projections rebuild: every live read model emptied and folded again (the CLI's code path).
 *
 *   node dist/bench/main.js audit [--occurrences 50000] [--executions 0.5] [--rounds 2] [--keep]
 *
 * PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a fresh schema dropped at the end.
 */
import { benchArgs } from './bench-args.js';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { auditVerify } from '../src/adapters/cli/audit-verify.js';
import { LOG_PASS_THREAD } from '../src/adapters/cli/audit-log-pass.js';
import { runMigrations } from '../src/adapters/eventstore/sql/migrations.js';
import { PgSqlClient } from '../src/adapters/eventstore/sql/pg-sql-client.js';
import { SqlEventStore } from '../src/adapters/eventstore/sql/sql-event-store.js';
import { UpcasterRegistry } from '../src/adapters/eventstore/upcasters.js';
import { IMPLEMENTED_CAPABILITIES } from '../src/adapters/config/capabilities.js';
import { allMigrations } from '../src/app.module.js';
import { verifyLog } from '../src/commands/audit/verify-log.js';
import { manualIdentity } from '../src/domain/dedupe/dedupe-identity.js';
import { executionIdFor } from '../src/domain/execution/execution.js';
import { missionDecider } from '../src/domain/mission/mission.js';
import type { StreamAppend } from '../src/domain/ports/event-store.js';
import { manualEvidence, observedOccurrence, observingTrigger } from '../src/domain/occurrence/observed-occurrence.js';
import { executionStream, missionStream, occurrenceStream, triggerStream } from '../src/domain/shared/ids.js';
import { isRejection } from '../src/domain/shared/result.js';
import {
  type DefinedTrigger,
  initialTriggerState,
  reviseTrigger,
  evolveTrigger,
} from '../src/domain/trigger/trigger.js';
import { projections } from '../src/projections/index.js';
import { rebuildReadModels } from '../src/projections/runner/rebuild.js';
import { withReadIndexesDeferred } from '../src/projections/runner/deferred-indexes.js';

const TENANT = 'bench';
const GRANTS = {
  maxExecutionsPerHour: 100_000,
  maxConcurrent: 100,
  resourceScopes: ['repo:bench/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

interface Options {
  occurrences: number;
  executions: number;
  rounds: number;
  /** Leaves the schema for profiling one read model's fold (its name is logged). */
  keep: boolean;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const seconds = (from: number) => (performance.now() - from) / 1000;

export async function auditBench(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const sql = await PgSqlClient.connect({ connectionString: databaseUrl, schema, max: 8 });
  try {
    await runMigrations(sql, allMigrations());
    const store = new SqlEventStore(sql);
    const { rows } = await sql.query<{ version: string }>(`SELECT split_part(version(), ' on ', 1) AS version`);
    log(`${rows[0]!.version}; node ${process.version}; ${cpus().length} cores; schema ${schema}`);

    const built = performance.now();
    const events = await buildLog(store, options);
    log(`log of ${events} events written in ${seconds(built).toFixed(1)} s`);
    const folded = performance.now();
    await rebuildReadModels(sql, store, projections, {
      onRebuilt: ({ name }, s) => {
        log(`  ${name} folded in ${s.toFixed(2)} s`);
      },
    });
    log(`live read models folded in ${seconds(folded).toFixed(1)} s`);
    const size = await sql.query<{ size: string }>(`SELECT pg_size_pretty(pg_total_relation_size('events')) AS size`);
    log(`events table ${size.rows[0]!.size}`);

    const results: Array<Record<string, number>> = [];
    for (let round = 1; round <= options.rounds; round++) {
      const copy = performance.now();
      await sql.query(`COPY (SELECT * FROM events ORDER BY transaction_id, position) TO '/dev/null'`);
      const copySeconds = seconds(copy);
      const pages = performance.now();
      let read = 0;
      for (let after = 0; ;) {
        const page = await store.readAll({ after, maxCount: 2000, raw: true });
        read += page.length;
        if (page.length < 2000) break;
        after = page[page.length - 1]!.position;
      }
      const pagesSeconds = seconds(pages);
      const cpu = process.cpuUsage();
      const pass = performance.now();
      const upcasters = new UpcasterRegistry();
      const summary = await verifyLog(store, { upcast: (e) => upcasters.upcast(e) });
      const passSeconds = seconds(pass);
      const passCpu = process.cpuUsage(cpu);
      const wholeStarted = performance.now();
      // As `reveille audit verify` runs it: the log pass in its own thread.
      const whole = await auditVerify(
        { sql, store, upcasters: new UpcasterRegistry() },
        { logPassThread: LOG_PASS_THREAD },
      );
      const wholeSeconds = seconds(wholeStarted);
      const rebuilt = performance.now();
      // As `reveille projections rebuild` runs it: the query-only indexes built once, after the rows.
      await withReadIndexesDeferred(sql, projections, () => rebuildReadModels(sql, store, projections));
      const rebuildSeconds = seconds(rebuilt);
      if (summary.violations > 0 || !whole.ok)
        throw new Error(`the bench log is not clean: ${JSON.stringify(whole.byRule)}`);
      const result = {
        round,
        events: read,
        copySeconds,
        pagesSeconds,
        passSeconds,
        passNodeCpuUs: (passCpu.user + passCpu.system) / read,
        wholeSeconds,
        readModelSeconds: whole.readModelSeconds,
        rebuildSeconds,
      };
      results.push(result);
      log(JSON.stringify(result));
    }
    process.stdout.write(`${table(results)}\n`);
  } finally {
    if (options.keep) log(`schema ${schema} kept (--keep)`);
    else await sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await sql.close();
  }
}

/** A Mission, a manual Trigger, then the Occurrences and executions in batches of 500 streams. */
async function buildLog(store: SqlEventStore, options: Options): Promise<number> {
  const at = (await store.now()).toISOString();
  const missionCommand = {
    type: 'ReviseMission' as const,
    tenant: TENANT,
    missionId: 'm-1',
    definition: { state: 'active', grants: GRANTS },
    reason: 'bench',
    actor: 'bench',
    at,
  };
  const missionEvents = missionDecider.decide(missionCommand, missionDecider.initialState);
  if (isRejection(missionEvents)) throw new Error(`mission rejected: ${missionEvents.code}`);
  await store.append(
    missionStream(TENANT, 'm-1'),
    missionEvents.map((e) => ({ type: e.type, data: e.data, metadata: { tenant: TENANT, actor: 'bench' } })),
    'no_stream',
  );
  const mission = missionEvents.reduce(missionDecider.evolve, missionDecider.initialState);
  const revised = reviseTrigger(
    {
      type: 'ReviseTrigger',
      tenant: TENANT,
      triggerId: 't-1',
      definition: { missionId: 'm-1', type: 'manual' },
      mission,
      capabilities: IMPLEMENTED_CAPABILITIES,
      pins: { tzdataVersion: process.versions.tz ?? 'unknown' },
      reason: 'bench',
      actor: 'bench',
      at,
    },
    initialTriggerState,
  );
  if (isRejection(revised)) throw new Error(`trigger rejected: ${revised.code}`);
  await store.append(
    triggerStream(TENANT, 't-1'),
    revised.map((e) => ({ type: e.type, data: e.data, metadata: { tenant: TENANT, actor: 'bench' } })),
    'no_stream',
  );
  const trigger = revised.reduce(evolveTrigger, initialTriggerState) as DefinedTrigger;
  const metadata = { tenant: TENANT, actor: 'bench' };
  const every = options.executions > 0 ? Math.max(1, Math.round(1 / options.executions)) : 0;
  let events = 2;
  for (let start = 0; start < options.occurrences; start += 500) {
    const batch: StreamAppend[] = [];
    const executions: StreamAppend[] = [];
    for (let i = start; i < Math.min(start + 500, options.occurrences); i++) {
      const observed = observedOccurrence({
        kind: 'manual',
        trigger: observingTrigger(trigger),
        dedupeIdentity: manualIdentity(TENANT, trigger, `k-${i}`),
        evidence: manualEvidence({ n: i, pad: 'x'.repeat(200) }, []),
        observedAt: at,
      });
      const executionId = executionIdFor(observed.occurrenceId);
      const request = {
        executionId,
        tenant: TENANT,
        missionId: 'm-1',
        triggerId: 't-1',
        triggerRevision: trigger.revision,
        occurrenceId: observed.occurrenceId,
        input: observed.input,
        resourceRefs: [],
        lane: 'trigger:t-1',
        scheduledAt: null,
        firedAt: at,
        limits: { maxConcurrent: GRANTS.maxConcurrent, maxExecutionsPerHour: GRANTS.maxExecutionsPerHour },
        slotTakenAt: 'claim' as const,
        delivery: trigger.definition.delivery,
      };
      batch.push({
        streamId: occurrenceStream(observed.dedupeHash),
        events: [
          { type: 'OccurrenceObserved', data: observed, metadata },
          {
            type: 'OccurrenceAdmitted',
            data: { occurrenceId: observed.occurrenceId, executionId, firedAt: at, request, decidedAt: at },
            metadata,
          },
        ],
        expected: 'no_stream',
      });
      if (every > 0 && i % every === 0) {
        const life = { tenant: TENANT, missionId: 'm-1', triggerId: 't-1', executionId, generation: 1, attempt: 1, at };
        executions.push({
          streamId: executionStream(executionId),
          events: [
            { type: 'ExecutionClaimed', data: { ...life, fence: 1, consumerId: 'w-1' }, metadata },
            {
              type: 'ExecutionCompleted',
              data: { ...life, fence: 1, outcome: 'succeeded', retryable: false, error: null, receipt: { ok: true } },
              metadata,
            },
          ],
          expected: 'no_stream',
        });
      }
    }
    await store.appendStreams(batch);
    if (executions.length > 0) await store.appendStreams(executions);
    events += batch.length * 2 + executions.length * 2;
  }
  return events;
}

function table(results: Array<Record<string, number>>): string {
  const rate = (events: number, s: number) => Math.round(events / s).toLocaleString('en-US');
  const lines = [
    '| round | events | raw COPY TO /dev/null | raw readAll pages | verify: log pass | log pass node CPU µs/event | `audit verify` (whole) | its read-model pass | `projections rebuild` |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const e = r.events!;
    lines.push(
      `| ${r.round} | ${e.toLocaleString('en-US')} | ${r.copySeconds!.toFixed(2)} s (${rate(e, r.copySeconds!)}/s) | ${r.pagesSeconds!.toFixed(2)} s (${rate(e, r.pagesSeconds!)}/s) | ${r.passSeconds!.toFixed(2)} s (${rate(e, r.passSeconds!)}/s) | ${Math.round(r.passNodeCpuUs!)} | ${r.wholeSeconds!.toFixed(2)} s (${rate(e, r.wholeSeconds!)}/s) | ${r.readModelSeconds!.toFixed(2)} s | ${r.rebuildSeconds!.toFixed(2)} s (${rate(e, r.rebuildSeconds!)}/s) |`,
    );
  }
  return lines.join('\n');
}

function parseArgs(args: string[]): Options {
  const given = benchArgs('audit', args, {
    values: ['--occurrences', '--executions', '--rounds'],
    flags: ['--keep'],
  });
  return {
    occurrences: given.number('--occurrences', 50_000, { min: 1, integer: true }),
    executions: given.number('--executions', 0.5, { min: 0, max: 1 }),
    rounds: given.number('--rounds', 2, { min: 1, integer: true }),
    keep: given.flag('--keep'),
  };
}
