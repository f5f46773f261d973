/**
 * Signed 1 KiB webhook deliveries per second at 16 connections over loopback, with p50/p99 latency,
 * beside two baselines measured in the same run: a bare `node:http` server answering 202, and a raw
 * `pg` INSERT of the occurrence row. Then the p99 at half the measured rate.
 *
 *   node dist/bench/main.js ingress [--seconds 10] [--warmup 10] [--repeat 3] [--connections 16] [--single | --one-loop | --split]
 *
 * Each deployment first takes `--warmup` seconds of full-rate load that no figure counts (its rate
 * second by second is printed): a long-running service is measured warm, and the ramp shows what a
 * cold start costs. `--warmup 0` measures from cold.
 *
 * Every deployment by default: the service as one process as `reveille serve` starts it on
 * PostgreSQL (admission and read models in a background thread), the same on one event loop
 * (REVEILLE_BACKGROUND=on), and split by role into an HTTP-only process and a background one.
 */
import { benchArgs, BenchUsage } from './bench-args.js';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pg from 'pg';
import { command, type ServiceProcess, startService, startSplitService } from './service-process.js';
import { rawInsertRate } from './raw-baseline.js';
import { describeWork, meterWork } from './work-meter.js';

type Deployment = 'one process' | 'one event loop' | 'split by role';

// Enough Missions that every Occurrence of the whole bench is admitted (each grants 10,000 at once).
const MISSIONS = 8;
/** Issue 5's target: accepted deliveries/s at full rate, and the p99 (ms) at half that rate. */
const TARGET = { perSecond: 1_000, halfRateP99Ms: 50 };

interface Options {
  seconds: number;
  warmup: number;
  repeat: number;
  connections: number;
  deployment: Deployment | 'all';
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function ingressBench(args: string[]): Promise<void> {
  const options = parse(args);
  const deployments: Deployment[] =
    options.deployment === 'all' ? ['one process', 'one event loop', 'split by role'] : [options.deployment];
  const runs = [];
  for (const deployment of deployments)
    runs.push({ deployment, ...(await measure(deployment, options, runs.length === 0)) });
  const bare = await bareHttpBaseline(options);
  const raw = runs[0]!.raw!;
  const rows = runs.flatMap(({ deployment, full, half }) => [
    [
      `signed deliveries (Reveille, ${deployment}${options.repeat > 1 ? `, median of ${options.repeat}` : ''})`,
      full.accepted.toFixed(0),
      full.p50,
      full.p99,
      (full.accepted / bare.accepted).toFixed(3),
      (full.accepted / raw).toFixed(3),
    ],
    [
      `same at half rate (${Math.floor(full.accepted / 2)}/s, ${deployment})`,
      half.accepted.toFixed(0),
      half.p50,
      half.p99,
      '',
      '',
    ],
  ]);
  rows.push(
    ['bare node:http 202', bare.accepted.toFixed(0), bare.p50, bare.p99, '1', ''],
    ['raw pg INSERT (same row)', raw.toFixed(0), '', '', '', '1'],
  );
  process.stdout.write(
    `\n| what | per second | p50 ms | p99 ms | ÷ bare http | ÷ raw insert |\n|---|---|---|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n\n`,
  );
  for (const { deployment, full, drain } of runs) {
    process.stdout.write(
      `${deployment}: non-2xx during the full-rate run ${full.non2xx}; ${drain.observed} Occurrences observed; undecided right after it ${drain.undecided}, all decided ${(drain.ms / 1000).toFixed(1)} s later\n`,
    );
  }
  for (const { deployment, full, half } of runs) {
    const rate = full.accepted >= TARGET.perSecond ? 'met' : 'missed';
    const latency = half.p99 < TARGET.halfRateP99Ms ? 'met' : 'missed';
    process.stdout.write(
      `${deployment}: target ≥ ${TARGET.perSecond}/s ${rate} (${full.accepted.toFixed(0)}/s); p99 < ${TARGET.halfRateP99Ms} ms at half rate ${latency} (${half.p99} ms)\n`,
    );
  }
}

/**
 * One deployment: `one process` is `reveille serve` as is (background thread); `one event loop` runs
 * admission and read models on the HTTP event loop (REVEILLE_BACKGROUND=on); `split by role` is an
 * HTTP-only process (REVEILLE_BACKGROUND=off) beside one running admission and the read models.
 */
async function measure(deployment: Deployment, options: Options, withRawBaseline: boolean) {
  const env = { REVEILLE_INGRESS_RATE: '1000000', REVEILLE_INGRESS_BURST: '1000000' };
  const port = 3900 + 2 * Math.floor(Math.random() * 45);
  const service =
    deployment === 'split by role'
      ? await startSplitService(port, env)
      : await startService(port, deployment === 'one event loop' ? { ...env, REVEILLE_BACKGROUND: 'on' } : env);
  try {
    // Nothing completes executions here, so each Mission fills up to its concurrency grant (at most
    // 10,000): deliveries are spread over MISSIONS Missions (one Trigger each, by event type) so that
    // every Occurrence of the run is admitted, not blocked `concurrency_limit`.
    for (let m = 0; m < MISSIONS; m++) {
      await command(service, 'PUT', `/v1/missions/m-bench-${m}`, {
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
    }
    await command(service, 'PUT', '/v1/sources/s-bench', {
      scheme: 'standard-webhooks',
      rateLimit: { perSecond: 100_000, burst: 100_000 },
    });
    const { secret } = await command(service, 'POST', '/v1/sources/s-bench/keys', {});
    for (let m = 0; m < MISSIONS; m++) {
      await command(service, 'PUT', `/v1/triggers/t-bench-${m}`, {
        missionId: `m-bench-${m}`,
        type: 'webhook',
        source: { sourceId: 's-bench', eventTypes: [`push-${m}`] },
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the bindings read model catches up

    const key = Buffer.from(String(secret).slice('whsec_'.length), 'base64');
    let signedSoFar = 0;
    const sign = () => {
      const id = `msg_${randomUUID()}`;
      const body = JSON.stringify({ type: `push-${signedSoFar++ % MISSIONS}`, id, pad: 'x'.repeat(927) });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
      return {
        body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': timestamp,
          'webhook-signature': `v1,${signature}`,
        },
      };
    };
    // Signed ahead of the timed runs (well inside the 5-minute tolerance) so the load generator spends
    // its share of the two cores sending, not hashing; every delivery is still unique.
    const presigned = Array.from({ length: ((options.repeat + 1) * options.seconds + options.warmup) * 4_000 }, sign);
    let next = 0;
    const signed = () => presigned[next++ % presigned.length]!;

    log(
      `ingress (${deployment}): ${options.seconds}s at ${options.connections} connections against ${service.baseUrl}`,
    );
    const warm =
      options.warmup > 0
        ? await load(
            `${service.baseUrl}/v1/ingress/s-bench`,
            { ...options, seconds: options.warmup },
            signed,
            undefined,
            `warm-up, not counted (${options.warmup}s)`,
          )
        : null;
    const groups: Record<string, number[]> =
      deployment === 'split by role'
        ? { http: [service.pids[0]!], background: [service.pids[1]!] }
        : { service: service.pids };
    const runs = [];
    for (let i = 0; i < options.repeat; i++) {
      const label = options.repeat > 1 ? `run ${i + 1} of ${options.repeat}` : undefined;
      const run = await meterWork(service.databaseUrl, groups, () =>
        load(`${service.baseUrl}/v1/ingress/s-bench`, options, signed, undefined, label),
      );
      log(`    ${describeWork(run.work, Math.max(1, run.result.accepted * options.seconds))}`);
      runs.push(run);
    }
    const { result: full } = [...runs].sort((a, b) => a.result.accepted - b.result.accepted)[
      Math.floor((runs.length - 1) / 2)
    ]!;
    if (runs.length > 1)
      log(
        `  runs: ${runs.map((r) => r.result.accepted.toFixed(0)).join(', ')} accepted/s; the median run's figures count`,
      );
    // Accepting is half the work: the admission must keep up, or the rate is not sustainable.
    const drain = await drainBacklog(service);
    log(
      `  admission backlog right after the full-rate run: ${drain.undecided} undecided, all decided ${(drain.ms / 1000).toFixed(1)} s later`,
    );
    // A delivery no Trigger binds is accepted with no Occurrence: make sure the rate is of real ones.
    const accepted = Math.round(
      runs.reduce((sum, r) => sum + r.result.accepted * options.seconds, 0) +
        (warm ? warm.accepted * options.warmup : 0),
    );
    log(
      `  Occurrences observed: ${drain.observed} for ${accepted} accepted deliveries (warm-up included); decided: ${drain.decided}`,
    );
    if (drain.observed < accepted)
      throw new Error(`only ${drain.observed} of ${accepted} accepted deliveries became Occurrences`);
    const half = await load(
      `${service.baseUrl}/v1/ingress/s-bench`,
      { ...options },
      signed,
      Math.max(1, Math.floor(full.accepted / 2)),
    );
    const raw = withRawBaseline
      ? await rawInsertRate(service.databaseUrl, service.schema, options.connections, Math.min(options.seconds, 5))
      : null;
    return { full, half, drain, raw };
  } finally {
    await service.stop();
  }
}

/** Observed Occurrences not yet decided by admission, polled until none are left. */
async function drainBacklog(
  service: ServiceProcess,
): Promise<{ undecided: number; ms: number; observed: number; decided: string }> {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    const undecided = async () =>
      Number(
        (
          await client.query(`SELECT (SELECT count(*) FROM ${service.schema}.events WHERE type = 'OccurrenceObserved')
                                  - (SELECT count(*) FROM ${service.schema}.events WHERE type IN ('OccurrenceAdmitted', 'OccurrenceBlocked')) AS n`)
        ).rows[0].n,
      );
    const started = Date.now();
    const first = await undecided();
    for (let left = first; left > 0 && Date.now() - started < 120_000; left = await undecided())
      await new Promise((resolve) => setTimeout(resolve, 100));
    const observed = Number(
      (await client.query(`SELECT count(*) AS n FROM ${service.schema}.events WHERE type = 'OccurrenceObserved'`))
        .rows[0].n,
    );
    const decisions = await client.query<{ decision: string; n: string }>(
      `SELECT CASE WHEN type = 'OccurrenceAdmitted' THEN 'admitted' ELSE 'blocked ' || (data->>'reason') END AS decision, count(*) AS n
         FROM ${service.schema}.events WHERE type IN ('OccurrenceAdmitted', 'OccurrenceBlocked') GROUP BY 1 ORDER BY 1`,
    );
    const decided = decisions.rows.map((r) => `${r.n} ${r.decision}`).join(', ');
    return { undecided: first, ms: Date.now() - started, observed, decided };
  } finally {
    await client.end();
  }
}

async function load(
  url: string,
  options: Options,
  next: () => { body: string; headers: Record<string, string> },
  overallRate?: number,
  label?: string,
) {
  // Accepted deliveries second by second: a run's average hides the service warming up (JIT, caches).
  const perSecond: number[] = [];
  const slowest: number[] = [];
  let started = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const tracker = autocannon(
      {
        url,
        method: 'POST',
        connections: options.connections,
        duration: options.seconds,
        overallRate,
        requests: [
          {
            setupRequest: (request: Record<string, unknown>) => {
              const delivery = next();
              return { ...request, method: 'POST', body: delivery.body, headers: delivery.headers };
            },
          },
        ],
      } as unknown as autocannon.Options,
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    tracker.on('start', () => (started = Date.now()));
    tracker.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      const second = Math.floor((Date.now() - started) / 1000);
      slowest[second] = Math.max(slowest[second] ?? 0, Math.round(responseTime));
      if (statusCode < 200 || statusCode > 299) return;
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    });
  });
  const accepted = (result['2xx'] ?? 0) / options.seconds;
  const bySecond = (values: number[]) => Array.from({ length: options.seconds }, (_, i) => values[i] ?? 0).join(' ');
  log(
    `  ${label ?? (overallRate ? `rate ${overallRate}/s` : 'open loop')}: ${accepted.toFixed(0)} accepted/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}; ` +
      `by second: ${bySecond(perSecond)}; slowest answer (ms) by second: ${bySecond(slowest)}`,
  );
  return { accepted, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

async function bareHttpBaseline(options: Options) {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(202, { 'content-type': 'application/json' }).end('{"occurrences":[]}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    return await load(url, options, () => ({
      body: 'x'.repeat(1024),
      headers: { 'content-type': 'application/json' },
    }));
  } finally {
    server.close();
  }
}

function parse(args: string[]): Options {
  const given = benchArgs('ingress', args, {
    values: ['--seconds', '--warmup', '--repeat', '--connections'],
    flags: ['--split', '--one-loop', '--single'],
  });
  const flags: Array<[string, Deployment]> = [
    ['--split', 'split by role'],
    ['--one-loop', 'one event loop'],
    ['--single', 'one process'],
  ];
  const chosen = flags.filter(([flag]) => given.flag(flag));
  if (chosen.length > 1) throw new BenchUsage(`${chosen.map(([flag]) => flag).join(' and ')} exclude each other`);
  const deployment = chosen[0]?.[1] ?? 'all';
  return {
    seconds: given.number('--seconds', 10, { min: 1 }),
    warmup: given.number('--warmup', 10, { min: 0 }),
    repeat: given.number('--repeat', 3, { min: 1, integer: true }),
    connections: given.number('--connections', 16, { min: 1, integer: true }),
    deployment,
  };
}
