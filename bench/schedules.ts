/**
 * Schedules: N minutely schedule Triggers (default 10,000), all due at the same instant every minute,
 * materialized by one `ScheduleMaterializer` on the real database clock, with the due-index
 * projection running beside it as in `serve` (admission is not running: this measures the scheduler).
 * The Triggers' activations are recorded first (at once, as the materializer does), then for each
 * following minute it prints the delay between the intended instant and the commit of its
 * OccurrenceObserved (p50/p99/max), the instants committed per second during the burst and the CPU
 * spent per instant (this process + its PostgreSQL backends) from just before the instant and over
 * the whole minute (work done ahead of the instant, such as staging, included), beside raw `pg`
 * INSERT baselines measured in the same run (single-row, and multi-row as the materializer writes).
 *
 *   node dist/bench/main.js schedules [--triggers 10000] [--minutes 2] [--batch 500] [--concurrency 2]
 *
 * PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a fresh schema that
 * is dropped at the end. Waits for minute boundaries: about 1–3 minutes in all.
 */
import { benchArgs } from './bench-args.js';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { AppendSignal } from '../src/projections/runner/append-signal.js';
import { runMigrations } from '../src/adapters/eventstore/sql/migrations.js';
import { PgSqlClient } from '../src/adapters/eventstore/sql/pg-sql-client.js';
import { appendBatch } from '../src/adapters/eventstore/sql/sql-batch-append.js';
import { SqlEventStore } from '../src/adapters/eventstore/sql/sql-event-store.js';
import { IMPLEMENTED_CAPABILITIES } from '../src/adapters/config/capabilities.js';
import {
  DEFAULT_BATCH,
  DEFAULT_CONCURRENCY,
  ScheduleMaterializer,
} from '../src/adapters/scheduler/schedule-materializer.js';
import { handleCommand } from '../src/commands/shared/write-kernel.js';
import { missionDecider, type MissionState } from '../src/domain/mission/mission.js';
import { missionStream, triggerStream } from '../src/domain/shared/ids.js';
import { isRejection } from '../src/domain/shared/result.js';
import { initialTriggerState, reviseTrigger } from '../src/domain/trigger/trigger.js';
import { allMigrations } from '../src/app.module.js';
import { ProjectionRunner } from '../src/projections/runner/projection-runner.js';
import { schedulesProjection } from '../src/projections/scheduler/schedules.projection.js';
import { backendMicros, cpuTicks } from './cpu.js';
import { rawBatchInsertRate, rawInsertRate } from './raw-baseline.js';

interface Options {
  triggers: number;
  minutes: number;
  batch: number;
  concurrency: number;
}

interface MinuteResult {
  instant: string;
  count: number;
  p50: number;
  p99: number;
  max: number;
  perSecond: number;
  /** CPU µs per instant, from just before the instant to its last commit (null: not measurable). */
  nodeCpu: number | null;
  pgCpu: number | null;
  /** The same over the whole minute before the last commit (staging ahead of the instant included); null for the first minute. */
  cycleNodeCpu: number | null;
  cyclePgCpu: number | null;
}

const TENANT = 'bench';
const GRANTS = {
  maxExecutionsPerHour: 100_000,
  maxConcurrent: 100,
  resourceScopes: ['repo:bench/*'],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

export async function schedulesBench(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  // Names this run's PostgreSQL sessions so their backends' CPU can be attributed.
  const appName = `reveille-${schema}`;
  process.env.PGAPPNAME = appName;
  const sql = await PgSqlClient.connect({ connectionString: databaseUrl, schema, max: 24 });
  const signal = new AppendSignal();
  try {
    await runMigrations(sql, allMigrations());
    const store = new SqlEventStore(sql, undefined, signal);
    const { rows } = await sql.query<{ version: string }>(`SELECT split_part(version(), ' on ', 1) AS version`);
    log(
      `${rows[0]!.version}; node ${process.version}; ${cpus().length} cores; ${options.triggers} minutely Triggers, batch ${options.batch}, concurrency ${options.concurrency}, schema ${schema}`,
    );

    const rawSingle = await rawInsertRate(databaseUrl, schema, 16, 3);
    const rawBatched = await rawBatchInsertRate(databaseUrl, schema, options.concurrency, 3, options.batch);
    log(
      `baseline: raw INSERT ${Math.round(rawSingle)} rows/s (1 row, c=16); ${Math.round(rawBatched)} rows/s (${options.batch} rows per INSERT, c=${options.concurrency})`,
    );

    await createTriggers(store, sql, options.triggers);
    const index = new ProjectionRunner(sql, store, schedulesProjection, { signal, batchSize: 1000, idlePollMs: 100 });
    const folded = Date.now();
    await index.catchUp();
    log(`due index folded in ${((Date.now() - folded) / 1000).toFixed(1)} s`);

    // Delays are read on the database clock: the host's only measures the commit moment, shifted by the offset.
    const offset = (await store.now()).getTime() - Date.now();
    const commits = new Map<string, number[]>();
    const materializer = new ScheduleMaterializer({
      store,
      sql,
      signal,
      batchSize: options.batch,
      concurrency: options.concurrency,
      onCommitted: (fired) => {
        const at = Date.now() + offset;
        for (const instant of fired) {
          const list = commits.get(instant) ?? [];
          list.push(at);
          commits.set(instant, list);
        }
      },
      onStaged: (instant, staged, ms, cpuMs) =>
        log(
          `${instant}: ${staged} routine decisions staged in ${ms} ms (node CPU ${Math.round(cpuMs)} ms = ${Math.round((cpuMs * 1000) / Math.max(staged, 1))} µs per decision)`,
        ),
      onError: (error) => log(`materializer error: ${(error as Error).message}`),
    });
    index.subscription.start();
    materializer.start();
    // New activations are recorded at once (not at their first instant); measure only after that.
    const activated = Date.now();
    while (
      Number(
        (
          await sql.query<{ n: string }>(
            `SELECT count(*) AS n FROM rm_schedules WHERE state_activation IS DISTINCT FROM activation`,
          )
        ).rows[0]!.n,
      ) > 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const readyAt = (await store.now()).toISOString();
    log(
      `${options.triggers} activations recorded in ${((Date.now() - activated) / 1000).toFixed(1)} s; measuring the minutes after ${readyAt}`,
    );
    const backends = async () =>
      (
        await sql.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [appName])
      ).rows.map((r) => r.pid);
    const results = await waitForMinutes(commits, options, readyAt, offset, backends);
    await materializer.stop();
    await index.subscription.stop();
    process.stdout.write(`\n${table(results, rawSingle, rawBatched, options)}\n`);
  } finally {
    await sql
      .query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      .catch((e: unknown) => log(`could not drop schema ${schema}: ${String(e)}`));
    await sql.close();
  }
}

/** The Mission and N schedule Triggers, written as the revision decider writes them, 500 streams per statement. */
async function createTriggers(store: SqlEventStore, sql: PgSqlClient, count: number): Promise<void> {
  const at = (await store.now()).toISOString();
  const missionCommand = {
    type: 'ReviseMission' as const,
    tenant: TENANT,
    missionId: 'm-1',
    definition: { state: 'active', grants: GRANTS },
    reason: '',
    actor: 'bench',
    at,
  };
  const mission = (
    await handleCommand(store, missionStream(TENANT, 'm-1'), missionDecider, missionCommand, { tenant: TENANT })
  ).state as MissionState;
  const started = Date.now();
  for (let from = 0; from < count; from += 500) {
    const chunk = Array.from({ length: Math.min(500, count - from) }, (_, i) => {
      const triggerId = `t-${from + i}`;
      const definition = {
        missionId: 'm-1',
        type: 'schedule',
        schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' },
      };
      const command = {
        type: 'ReviseTrigger' as const,
        tenant: TENANT,
        triggerId,
        definition,
        reason: '',
        actor: 'bench',
        at,
        mission,
        capabilities: IMPLEMENTED_CAPABILITIES,
        pins: { tzdataVersion: process.versions.tz ?? 'unknown' },
      };
      const events = reviseTrigger(command, initialTriggerState);
      if (isRejection(events)) throw new Error(`trigger rejected: ${events.code}`);
      return {
        streamId: triggerStream(TENANT, triggerId),
        events: events.map((e) => ({ type: e.type, data: e.data, metadata: { tenant: TENANT, actor: 'bench' } })),
        expected: 'no_stream' as const,
      };
    });
    await appendBatch(sql, chunk);
  }
  log(`${count} Triggers created in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

interface CpuMark {
  node: NodeJS.CpuUsage;
  pg: Map<number, number>;
}

/**
 * Waits until `minutes` minute instants after `after` each have every Trigger committed (or a
 * generous timeout). CPU is read from just before each instant (by the database clock, `offset`)
 * until its last commit: this process (materializer and index projection) and its PostgreSQL backends.
 */
async function waitForMinutes(
  commits: Map<string, number[]>,
  options: Options,
  after: string,
  offset: number,
  backends: () => Promise<number[]>,
): Promise<MinuteResult[]> {
  const deadline = Date.now() + (options.minutes + 1.5) * 60_000;
  const done = () =>
    [...commits.entries()]
      .filter(([instant, list]) => instant > after && list.length >= options.triggers)
      .sort(([a], [b]) => (a < b ? -1 : 1));
  const mark = async (): Promise<CpuMark> => ({ node: process.cpuUsage(), pg: await cpuTicks(await backends()) });
  const starts = new Map<string, CpuMark>();
  const results: MinuteResult[] = [];
  let previous: CpuMark | null = null;
  while (results.length < options.minutes && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const dbNow = Date.now() + offset;
    const next = new Date(Math.ceil(dbNow / 60_000) * 60_000).toISOString();
    if (next > after && !starts.has(next) && Date.parse(next) - dbNow < 400) starts.set(next, await mark());
    for (const [instant, list] of done().slice(results.length)) {
      const start = starts.get(instant);
      const end = await mark();
      const delays = list.map((at) => at - Date.parse(instant)).sort((a, b) => a - b);
      const max = delays[delays.length - 1]!;
      const node = start ? process.cpuUsage(start.node) : null;
      const pg = start ? backendMicros(start.pg, end.pg) : null;
      results.push({
        instant,
        count: list.length,
        p50: quantile(delays, 0.5),
        p99: quantile(delays, 0.99),
        max,
        perSecond: list.length / (Math.max(max, 1) / 1000),
        nodeCpu: node ? (node.user + node.system) / list.length : null,
        pgCpu: pg === null ? null : pg / list.length,
        ...cycle(previous, end, list.length),
      });
      previous = end;
      log(`${instant}: ${list.length} instants, p99 ${quantile(delays, 0.99)} ms, last commit +${max} ms`);
    }
  }
  return results;
}

function cycle(from: CpuMark | null, to: CpuMark, count: number): Pick<MinuteResult, 'cycleNodeCpu' | 'cyclePgCpu'> {
  if (from === null) return { cycleNodeCpu: null, cyclePgCpu: null };
  const node = to.node.user + to.node.system - from.node.user - from.node.system;
  const pg = backendMicros(from.pg, to.pg);
  return { cycleNodeCpu: node / count, cyclePgCpu: pg === null ? null : pg / count };
}

function table(results: MinuteResult[], rawSingle: number, rawBatched: number, options: Options): string {
  const header = [
    'minute',
    'instants',
    'p50 delay ms',
    'p99 delay ms',
    'max delay ms',
    'instants/s',
    `vs raw 1-row INSERT/s`,
    `vs raw ${options.batch}-row INSERT/s`,
    'CPU µs/instant (node + pg)',
    'whole minute CPU µs/instant (node + pg)',
  ];
  const cpu = (v: number | null) => (v === null ? '?' : String(Math.round(v)));
  const rows = results.map((r) => [
    r.instant,
    String(r.count),
    String(r.p50),
    String(r.p99),
    String(r.max),
    Math.round(r.perSecond).toLocaleString('en-US'),
    `${((100 * r.perSecond) / rawSingle).toFixed(0)} % of ${Math.round(rawSingle).toLocaleString('en-US')}`,
    `${((100 * r.perSecond) / rawBatched).toFixed(0)} % of ${Math.round(rawBatched).toLocaleString('en-US')}`,
    `${cpu(r.nodeCpu)} + ${cpu(r.pgCpu)}`,
    `${cpu(r.cycleNodeCpu)} + ${cpu(r.cyclePgCpu)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]) =>
    `| ${cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => `${'-'.repeat(w + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

function parseArgs(args: string[]): Options {
  const given = benchArgs('schedules', args, { values: ['--triggers', '--minutes', '--batch', '--concurrency'] });
  const positive = { min: 1, integer: true };
  return {
    triggers: given.number('--triggers', 10_000, positive),
    minutes: given.number('--minutes', 2, positive),
    batch: given.number('--batch', DEFAULT_BATCH, positive),
    concurrency: given.number('--concurrency', DEFAULT_CONCURRENCY, positive),
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function log(message: string): void {
  process.stderr.write(`[schedules] ${message}\n`);
}
