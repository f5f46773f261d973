/**
 * Append throughput: new-stream appends (`expected 'no_stream'`, one ≈500-byte event each) through every
 * available EventStore adapter at several concurrency levels, against a baseline measured in the same
 * run — a plain `pg` INSERT of the same row into a table without the hash chain, through a pool of the
 * same size. Prints appends/s and the ratio to the baseline at the same concurrency.
 *
 *   node dist/bench/main.js append [--seconds 5] [--concurrency 1,4,16] [--warmup 1] [--rounds 1]
 *
 * With `--rounds N` the whole matrix runs N times, interleaved, and each cell reports its median rate:
 * on a shared 2-core machine a single few-second cell swings by tens of percent. CPU per append (this
 * process + its PostgreSQL backends, read from /proc when the database is local) is reported too: it is
 * far steadier than throughput under outside load.
 *
 * PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), in a fresh schema that is
 * dropped at the end. PGlite: a temporary directory. EventStoreDB: only when EVENTSTORE_URL is set.
 */
import { benchArgs, BenchUsage } from './bench-args.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { EventStore, NewEvent } from '../src/domain/ports/event-store.js';
import { eventStoreMigrations, runMigrations } from '../src/adapters/eventstore/sql/migrations.js';
import { PgSqlClient } from '../src/adapters/eventstore/sql/pg-sql-client.js';
import { PgliteSqlClient } from '../src/adapters/eventstore/sql/pglite-sql-client.js';
import { SqlEventStore } from '../src/adapters/eventstore/sql/sql-event-store.js';
import { backendMicros, cpuTicks } from './cpu.js';

const POOL_SIZE = 32;
const RAW = 'raw insert (pg)';

interface Options {
  seconds: number;
  warmup: number;
  concurrency: number[];
  rounds: number;
}

interface Cell {
  adapter: string;
  concurrency: number;
  appends: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU microseconds per append: this process, and its PostgreSQL backends (null when not measurable). */
  nodeCpu: number;
  pgCpu: number | null;
}

interface Target {
  name: string;
  op: Op;
  /** Backend pids whose CPU counts towards this target (PostgreSQL only). */
  backends?: () => Promise<number[]>;
}

/** One measured operation; resolves when the append is durable. */
type Op = () => Promise<unknown>;

export async function appendBench(args: string[]): Promise<void> {
  const options = parseArgs(args);
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const cleanups: Array<() => Promise<void>> = [];
  const cells: Cell[] = [];
  log(
    `append bench: ${options.seconds}s per cell (+${options.warmup}s warm-up), concurrency ${options.concurrency.join(', ')}, ${options.rounds} round(s), schema ${schema}`,
  );
  // Names this run's PostgreSQL sessions so their backends' CPU can be attributed.
  const appName = `reveille-${schema}`;
  process.env.PGAPPNAME = appName;
  try {
    // PostgreSQL: the adapter and the raw baseline share one database and schema.
    const sql = await PgSqlClient.connect({ connectionString: databaseUrl, schema, max: POOL_SIZE });
    cleanups.push(async () => {
      await sql
        .query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
        .catch((e: unknown) => log(`could not drop schema ${schema}: ${String(e)}`));
      await sql.close();
    });
    await runMigrations(sql, eventStoreMigrations);
    const raw = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, options: `-c search_path=${schema}` });
    raw.on('error', () => undefined);
    cleanups.unshift(() => raw.end());
    await raw.query(`CREATE TABLE raw_events (
      position bigserial PRIMARY KEY, event_id uuid UNIQUE, stream_id text, revision int, type text, schema_version int,
      data jsonb, metadata jsonb, recorded_at timestamptz DEFAULT now(), UNIQUE (stream_id, revision))`);
    const { rows } = await raw.query<{ version: string; sc: string }>(
      `SELECT split_part(version(), ' on ', 1) AS version, current_setting('synchronous_commit') AS sc`,
    );
    log(`${rows[0]!.version}, synchronous_commit=${rows[0]!.sc}; node ${process.version}; ${cpus().length} cores`);
    const postgres = new SqlEventStore(sql);
    const backends = async () =>
      (
        await raw.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [appName])
      ).rows.map((r) => r.pid);

    const rawInsert: Op = () => {
      const e = newEvent();
      return raw.query({
        name: 'bench_raw_insert',
        text: 'INSERT INTO raw_events (event_id, stream_id, revision, type, schema_version, data, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        values: [
          e.id,
          `occurrence-${randomUUID()}`,
          0,
          e.type,
          e.schemaVersion,
          JSON.stringify(e.data),
          JSON.stringify(e.metadata),
        ],
      });
    };

    // PGlite: embedded, one connection; concurrent appends queue inside the process.
    const dir = await mkdtemp(join(tmpdir(), 'reveille-bench-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const lite = await PgliteSqlClient.open(dir);
    cleanups.unshift(() => lite.close());
    await runMigrations(lite, eventStoreMigrations);
    const targets: Target[] = [
      { name: RAW, op: rawInsert, backends },
      { name: 'postgres', op: appendTo(postgres), backends },
      { name: 'pglite', op: appendTo(new SqlEventStore(lite)) },
    ];

    if (process.env.EVENTSTORE_URL) {
      const { EsdbEventStore } = await import('../src/adapters/eventstore/esdb/esdb-event-store.js');
      const esdb = EsdbEventStore.connect(process.env.EVENTSTORE_URL);
      cleanups.unshift(() => esdb.close());
      await esdb.ping();
      targets.push({ name: 'eventstoredb', op: appendTo(esdb) });
    } else {
      log('EVENTSTORE_URL not set: EventStoreDB skipped');
    }

    // Baseline and adapters alternate at each concurrency so drift (table growth, checkpoints, other
    // load on the machine) hits all alike.
    for (let round = 1; round <= options.rounds; round++) {
      for (const concurrency of options.concurrency) {
        for (const target of targets)
          cells.push(await measure(target, concurrency, options, `round ${round}/${options.rounds}`));
      }
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
  process.stdout.write(`\n${table(summarize(cells))}\n`);
}

function appendTo(store: EventStore): Op {
  return () => store.append(`occurrence-${randomUUID()}`, [newEvent()], 'no_stream');
}

async function measure(target: Target, concurrency: number, options: Options, label: string): Promise<Cell> {
  const adapter = target.name;
  if (options.warmup > 0) await run(target.op, concurrency, options.warmup);
  log(`${label} ${adapter} c=${concurrency}: measuring ${options.seconds}s`);
  const started = Date.now();
  const ticker = setInterval(
    () => log(`  ${adapter} c=${concurrency}: ${((Date.now() - started) / 1000).toFixed(0)}s`),
    1000,
  );
  try {
    const before = target.backends ? await cpuTicks(await target.backends()) : null;
    const cpu = process.cpuUsage();
    const { count, elapsed, latencies } = await run(target.op, concurrency, options.seconds);
    const used = process.cpuUsage(cpu);
    const after = target.backends && before ? await cpuTicks(await target.backends()) : null;
    latencies.sort((a, b) => a - b);
    const cell: Cell = {
      adapter,
      concurrency,
      appends: count,
      perSecond: count / elapsed,
      p50: quantile(latencies, 0.5),
      p99: quantile(latencies, 0.99),
      nodeCpu: (used.user + used.system) / count,
      pgCpu: before && after ? (backendMicros(before, after) ?? NaN) / count : null,
    };
    if (cell.pgCpu !== null && !Number.isFinite(cell.pgCpu)) cell.pgCpu = null;
    log(
      `${adapter} c=${concurrency}: ${count} appends, ${Math.round(cell.perSecond)}/s, p50 ${cell.p50.toFixed(2)} ms, p99 ${cell.p99.toFixed(2)} ms, CPU/append node ${Math.round(cell.nodeCpu)} µs${cell.pgCpu === null ? '' : ` + pg ${Math.round(cell.pgCpu)} µs`}`,
    );
    return cell;
  } finally {
    clearInterval(ticker);
  }
}

/** Per (adapter, concurrency): the median round by rate, with latencies and CPU as medians too. */
function summarize(cells: Cell[]): Cell[] {
  const groups = new Map<string, Cell[]>();
  cells.forEach((c) =>
    groups.set(`${c.adapter}@${c.concurrency}`, [...(groups.get(`${c.adapter}@${c.concurrency}`) ?? []), c]),
  );
  return [...groups.values()].map((group) => {
    const pick = (f: (c: Cell) => number) => median(group.map(f));
    const pg = group.map((c) => c.pgCpu).filter((v): v is number => v !== null);
    return {
      ...group[0]!,
      appends: pick((c) => c.appends),
      perSecond: pick((c) => c.perSecond),
      p50: pick((c) => c.p50),
      p99: pick((c) => c.p99),
      nodeCpu: pick((c) => c.nodeCpu),
      pgCpu: pg.length ? median(pg) : null,
    };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `concurrency` workers call `op` back to back until the time is up. */
async function run(
  op: Op,
  concurrency: number,
  seconds: number,
): Promise<{ count: number; elapsed: number; latencies: number[] }> {
  const latencies: number[] = [];
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async () => {
    for (let t = performance.now(); t < deadline;) {
      await op();
      const done = performance.now();
      latencies.push(done - t);
      t = done;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { count: latencies.length, elapsed: (performance.now() - start) / 1000, latencies };
}

/** An `OccurrenceObserved`-shaped event whose data serializes to about 500 bytes. */
function newEvent(): NewEvent & { id: string; schemaVersion: number } {
  const data = {
    triggerId: randomUUID(),
    sourceId: randomUUID(),
    dedupeIdentity: randomBytes(32).toString('hex'),
    observedAt: new Date().toISOString(),
    kind: 'webhook',
    headers: { 'content-type': 'application/json', 'webhook-id': `msg_${randomBytes(12).toString('hex')}` },
    payloadDigest: randomBytes(32).toString('hex'),
    note: 'x'.repeat(74),
  };
  return {
    id: randomUUID(),
    type: 'OccurrenceObserved',
    schemaVersion: 1,
    data,
    metadata: { tenant: 'bench', actor: 'bench', correlationId: randomUUID(), causationId: randomUUID() },
  };
}

function parseArgs(args: string[]): Options {
  const given = benchArgs('append', args, { values: ['--seconds', '--warmup', '--concurrency', '--rounds'] });
  const seconds = given.number('--seconds', 5, { min: 0 });
  const warmup = given.number('--warmup', Math.min(1, seconds / 4), { min: 0 });
  const concurrency = (given.text('--concurrency') ?? '1,4,16').split(',').map((c) => (c.trim() ? Number(c) : NaN));
  const rounds = given.number('--rounds', 1, { min: 1, integer: true });
  if (
    !(seconds > 0) ||
    !(warmup >= 0) ||
    !Number.isInteger(rounds) ||
    rounds < 1 ||
    concurrency.some((c) => !Number.isInteger(c) || c < 1 || c > POOL_SIZE)
  ) {
    throw new BenchUsage(
      `usage: append [--seconds N>0] [--warmup N>=0] [--rounds N>=1] [--concurrency 1,4,16 (each 1..${POOL_SIZE})]`,
    );
  }
  return { seconds, warmup, concurrency, rounds };
}

function table(cells: Cell[]): string {
  const baseline = new Map(cells.filter((c) => c.adapter === RAW).map((c) => [c.concurrency, c.perSecond]));
  const rows = [...cells]
    .sort((a, b) => order(a.adapter) - order(b.adapter) || a.concurrency - b.concurrency)
    .map((c) => {
      const base = baseline.get(c.concurrency);
      const cpu = `${Math.round(c.nodeCpu)}${c.pgCpu === null ? '' : ` + ${Math.round(c.pgCpu)}`}`;
      return [
        c.adapter,
        String(c.concurrency),
        Math.round(c.perSecond).toLocaleString('en-US'),
        base ? `${((100 * c.perSecond) / base).toFixed(0)} %` : '-',
        c.p50.toFixed(2),
        c.p99.toFixed(2),
        cpu,
      ];
    });
  const header = [
    'adapter',
    'concurrency',
    'appends/s',
    'vs raw insert',
    'p50 ms',
    'p99 ms',
    'CPU µs/append (node + pg)',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]) =>
    `| ${cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

function order(adapter: string): number {
  return [RAW, 'postgres', 'pglite', 'eventstoredb'].indexOf(adapter);
}

function quantile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function log(message: string): void {
  process.stderr.write(`[append] ${message}\n`);
}
