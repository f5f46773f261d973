/**
 * Delivery to consumers: executions admitted on one Mission, claimed, run and completed by 16 workers of the
 * package's own consumer client (`reveille/client`), in pull mode (long-polled claim-next) and in Redis Streams
 * mode, beside a raw PostgreSQL job queue (SKIP LOCKED) measured in the same run.
 *
 *   node dist/bench/main.js deliver [--backlog 1000] [--workers 16] [--paced-seconds 10] [--max-drain-seconds 120]
 *                                   [--modes pull,redis]
 *
 * Two phases per mode: a backlog admitted beforehand and drained (completed executions per second), then fires
 * spaced evenly at half that rate (bench/paced-fires.ts) while the workers run, whose admission→claim latency is read from the log itself
 * (store-clock `recorded_at` of OccurrenceAdmitted and of the first ExecutionClaimed).
 */
import { benchArgs, BenchUsage } from './bench-args.js';
import { randomBytes, randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createWorker, type Worker } from '../src/adapters/client/index.js';
import { firePaced } from './paced-fires.js';
import { rawQueueRate } from './raw-queue.js';
import { command, type ServiceProcess, startService } from './service-process.js';
import { describeWork, meterWork } from './work-meter.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MISSION = 'm-deliver';
const TRIGGER = 't-deliver';
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Mode = 'pull' | 'redis';
const MODES: readonly Mode[] = ['pull', 'redis'];

interface ModeResult {
  mode: Mode;
  admitted: number;
  admitPerSecond: number;
  drainPerSecond: number;
  drainLatency: Latency;
  pacedRate: number;
  pacedCompleted: number;
  pacedLatency: Latency;
  skipped: number;
  errors: number;
  work: string;
}

interface Latency {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

export async function deliverBench(args: string[]): Promise<void> {
  const given = benchArgs('deliver', args, {
    values: ['--backlog', '--workers', '--paced-seconds', '--max-drain-seconds', '--modes'],
  });
  const backlog = given.number('--backlog', 1000, { min: 1, integer: true });
  const workers = given.number('--workers', 16, { min: 1, integer: true });
  const pacedSeconds = given.number('--paced-seconds', 10, { min: 1 });
  const maxDrainSeconds = given.number('--max-drain-seconds', 120, { min: 1 });
  const modes = (given.text('--modes') ?? 'pull,redis').split(',') as Mode[];
  const unknownMode = modes.find((mode) => !MODES.includes(mode));
  if (unknownMode !== undefined) throw new BenchUsage(`--modes takes ${MODES.join(',')}, not "${unknownMode}"`);
  const results: ModeResult[] = [];
  for (const mode of modes) results.push(await runMode(mode, backlog, workers, pacedSeconds, maxDrainSeconds));
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  log(`raw queue: ${backlog} jobs, ${workers} workers, SELECT … FOR UPDATE SKIP LOCKED LIMIT 1 + UPDATE, then UPDATE`);
  const raw = await rawQueueRate(databaseUrl, backlog, workers);
  const rows = results.map(
    (r) =>
      `| ${r.mode} | ${r.drainPerSecond.toFixed(0)} | ${(r.drainPerSecond / raw).toFixed(3)} | ${r.drainLatency.p50} / ${r.drainLatency.p99} | ${r.pacedRate.toFixed(0)} | ${r.pacedLatency.p50} / ${r.pacedLatency.p99} / ${r.pacedLatency.max} | ${r.admitPerSecond.toFixed(0)} | ${r.skipped} / ${r.errors} |`,
  );
  process.stdout.write(
    `\n| mode (${workers} workers) | drained executions/s | ÷ raw | drain admission→claim p50 / p99 ms (queue wait) | paced fires/s | paced admission→claim p50 / p99 / max ms | backlog admitted/s | skipped / errors |\n` +
      `|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n` +
      `| raw pg queue (same run) | ${raw.toFixed(0)} | 1 | | | | | |\n`,
  );
  for (const r of results) process.stdout.write(`\n${r.mode} drain: ${r.work}\n`);
}

async function runMode(
  mode: Mode,
  backlog: number,
  workerCount: number,
  pacedSeconds: number,
  maxDrainSeconds: number,
): Promise<ModeResult> {
  const stream = `bench:wakeups:${randomBytes(6).toString('hex')}`;
  const group = 'bench-workers';
  const service = await startService(
    3800 + Math.floor(Math.random() * 90),
    mode === 'redis' ? { REDIS_URL, REVEILLE_WAKEUP_STREAM: stream } : {},
  );
  const redis = mode === 'redis' ? new Redis(REDIS_URL) : undefined;
  const db = new pg.Client({ connectionString: service.databaseUrl, options: `-c search_path=${service.schema}` });
  await db.connect();
  try {
    await command(service, 'PUT', `/v1/missions/${MISSION}`, {
      state: 'active',
      grants: {
        maxExecutionsPerHour: 100_000,
        maxConcurrent: 10_000,
        resourceScopes: [],
        classification: 'internal',
        acceptLowerTrust: false,
        maxCausalDepth: 4,
      },
    });
    await command(service, 'PUT', `/v1/triggers/${TRIGGER}`, { missionId: MISSION, type: 'manual' });
    // The group exists before the backlog's wakeups are published, so the workers read them from its start.
    if (redis) await redis.xgroup('CREATE', stream, group, '$', 'MKSTREAM');
    const fireToken = await service.token('occurrences:write');
    const workerToken = await service.token('executions:write');

    log(`deliver ${mode}: admitting a backlog of ${backlog} (manual fires, 16 connections, ?wait=decision)`);
    const admitStarted = performance.now();
    const admittedCount = await fire(service, fireToken, { amount: backlog });
    const admitPerSecond = admittedCount / ((performance.now() - admitStarted) / 1000);
    await untilAdmitted(db, admittedCount);
    const mark = await headPosition(db);

    let completed = 0;
    let skipped = 0;
    let errors = 0;
    const pool: Worker[] = [];
    log(`deliver ${mode}: draining with ${workerCount} workers`);
    const drainStarted = performance.now();
    const { work } = await meterWork(service.databaseUrl, { service: service.pids }, async () => {
      for (let i = 0; i < workerCount; i++)
        pool.push(
          createWorker({
            baseUrl: service.baseUrl,
            token: workerToken,
            consumerId: `bench-${mode}-${i}`,
            concurrency: 1,
            waitSeconds: 1,
            missionId: MISSION,
            ...(redis ? { redis: { url: REDIS_URL, stream, group } } : {}),
            handler: async (claim) => ({ receipt: { done: claim.executionId } }),
            onEvent: (event) => {
              if (event.type === 'completed') completed += 1;
              else if (event.type === 'skipped') skipped += 1;
              else if (event.type === 'error') {
                errors += 1;
                if (errors <= 3) log(`  worker error: ${String((event.error as Error)?.message ?? event.error)}`);
              }
            },
          }),
        );
      const progress = setInterval(() => log(`  ${completed} completed, ${skipped} skipped, ${errors} errors`), 5000);
      // A slow build may never drain: the rate is then what completed within the cap.
      await until(
        () => completed >= admittedCount || performance.now() - drainStarted > maxDrainSeconds * 1000,
      ).finally(() => clearInterval(progress));
    });
    const drained = completed;
    const drainPerSecond = drained / ((performance.now() - drainStarted) / 1000);
    const drainLatency = await admissionToClaim(db, 0, mark);
    log(`deliver ${mode}: drained ${drainPerSecond.toFixed(0)}/s; ${describeWork(work, Math.max(1, drained))}`);

    if (drained < admittedCount) {
      log(`deliver ${mode}: only ${drained} of ${admittedCount} completed within ${maxDrainSeconds}s; no paced phase`);
      await Promise.all(pool.map((w) => w.stop()));
      const none = { p50: NaN, p99: NaN, max: NaN, n: 0 };
      return {
        mode,
        admitted: admittedCount,
        admitPerSecond,
        drainPerSecond,
        drainLatency,
        pacedRate: 0,
        pacedCompleted: 0,
        pacedLatency: none,
        skipped,
        errors,
        work: describeWork(work, drained),
      };
    }
    const pacedRate = Math.max(1, Math.round(drainPerSecond / 2));
    log(`deliver ${mode}: paced fires at ${pacedRate}/s for ${pacedSeconds}s while the workers run`);
    const before = completed;
    const pacedMark = await headPosition(db);
    const pacedFires = await firePaced(
      service.baseUrl,
      `/v1/triggers/${TRIGGER}/occurrences?wait=decision`,
      fireToken,
      {
        rate: pacedRate,
        seconds: pacedSeconds,
      },
    );
    if (Object.keys(pacedFires.answers).some((code) => code !== '200'))
      log(`  paced fire answers: ${JSON.stringify(pacedFires.answers)}`);
    const paced = pacedFires.answered;
    const pacedEnd = performance.now();
    await until(() => completed - before >= paced || performance.now() - pacedEnd > 60_000);
    const pacedLatency = await admissionToClaim(db, pacedMark, Number.MAX_SAFE_INTEGER);
    await Promise.all(pool.map((w) => w.stop()));
    log(
      `deliver ${mode}: paced admission→claim p50 ${pacedLatency.p50} ms, p99 ${pacedLatency.p99} ms over ${pacedLatency.n}`,
    );
    return {
      mode,
      admitted: admittedCount,
      admitPerSecond,
      drainPerSecond,
      drainLatency,
      pacedRate: paced / pacedSeconds,
      pacedCompleted: completed - before,
      pacedLatency,
      skipped,
      errors,
      work: describeWork(work, drained),
    };
  } finally {
    await db.end();
    if (redis) {
      await redis.del(stream);
      redis.disconnect();
    }
    await service.stop();
  }
}

/** Manual fires with ?wait=decision over 16 connections; returns how many answered 200 (admitted). */
async function fire(
  service: ServiceProcess,
  token: string,
  limit: { amount: number } | { overallRate: number; duration: number },
): Promise<number> {
  let n = 0;
  const result = await autocannon({
    url: service.baseUrl,
    connections: 16,
    ...limit,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          method: 'POST',
          path: `/v1/triggers/${TRIGGER}/occurrences?wait=decision`,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': randomUUID(),
          },
          body: JSON.stringify({ input: { n: n++ } }),
        }),
      },
    ],
  } as unknown as autocannon.Options);
  const answers = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  if (Object.keys(answers).some((code) => code !== '200')) log(`  fire answers: ${JSON.stringify(answers)}`);
  return answers['200'] ?? 0;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

async function untilAdmitted(db: pg.Client, count: number): Promise<void> {
  for (;;) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceAdmitted'`);
    if (rows[0].n >= count) return;
    await sleep(50);
  }
}

async function headPosition(db: pg.Client): Promise<number> {
  const { rows } = await db.query('SELECT coalesce(max(position), 0)::bigint AS p FROM events');
  return Number(rows[0].p);
}

/** Store-clock milliseconds from each admission in (after, upTo] to its execution's first claim. */
async function admissionToClaim(db: pg.Client, after: number, upTo: number): Promise<Latency> {
  const { rows } = await db.query(
    `WITH admitted AS (
       SELECT data->>'executionId' AS execution_id, recorded_at FROM events
        WHERE type = 'OccurrenceAdmitted' AND position > $1 AND position <= $2),
     claimed AS (
       SELECT data->>'executionId' AS execution_id, min(recorded_at) AS recorded_at FROM events
        WHERE type = 'ExecutionClaimed' GROUP BY 1)
     SELECT extract(epoch FROM c.recorded_at - a.recorded_at) * 1000 AS ms
       FROM admitted a JOIN claimed c USING (execution_id) ORDER BY ms`,
    [after, upTo],
  );
  const ms = rows.map((r) => Number(r.ms));
  const at = (q: number) =>
    ms.length === 0 ? NaN : Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!);
  return { p50: at(0.5), p99: at(0.99), max: at(1), n: ms.length };
}
