/**
 * Zero-token idle (issue 16): signed webhook deliveries of which 90 % are suppressed — half by a guard
 * that is false (`guard_false`), half by `unchanged@1` (the resource's digest equals its baseline) — and
 * 10 % admitted. Prints the service and PostgreSQL CPU per suppressed and per admitted Occurrence (each
 * share metered on its own, from the first delivery until every Occurrence of it is decided), and the
 * wakeups sent (entries on the Redis wakeup stream) against the admitted executions.
 *
 *   node dist/bench/main.js suppress [--deliveries 1000] [--connections 16]
 *
 * The default is short enough to try on a laptop; `--deliveries 10000` (or BENCH_SUPPRESS_DELIVERIES)
 * is the figure.
 */
import { benchArgs, BenchUsage } from './bench-args.js';
import { createHmac, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { command, type ServiceProcess, startService } from './service-process.js';
import { meterWork, type Work } from './work-meter.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Options {
  deliveries: number;
  connections: number;
}

function parse(args: string[]): Options {
  const given = benchArgs('suppress', args, { values: ['--deliveries', '--connections'] });
  const fallback = Number(process.env.BENCH_SUPPRESS_DELIVERIES ?? 1000);
  const deliveries = given.number('--deliveries', fallback, { min: 20, integer: true });
  if (!Number.isInteger(deliveries) || deliveries < 20)
    throw new BenchUsage('BENCH_SUPPRESS_DELIVERIES is a whole number of at least 20');
  return { deliveries, connections: given.number('--connections', 16, { min: 1, integer: true }) };
}

type Kind = 'admitted' | 'guard_false' | 'unchanged';

export async function suppressBench(args: string[]): Promise<void> {
  const options = parse(args);
  const admitted = Math.round(options.deliveries / 10);
  const guardFalse = Math.floor((options.deliveries - admitted) / 2);
  const unchanged = options.deliveries - admitted - guardFalse;
  const stream = `reveille-bench-suppress-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(REDIS_URL);
  const port = 3900 + 2 * Math.floor(Math.random() * 45);
  const service = await startService(port, {
    REDIS_URL,
    REVEILLE_WAKEUP_STREAM: stream,
    REVEILLE_WAKEUP_MAXLEN: '1000000',
    REVEILLE_INGRESS_RATE: '1000000',
    REVEILLE_INGRESS_BURST: '1000000',
  });
  try {
    const secret = await setUp(service);
    const deliver = signer(secret);
    // The baseline `unchanged` compares with: one admitted Occurrence of the resource, before any metering.
    await send(service, [deliver('opened', 'r-steady', 'etag-1')], 1);
    await untilDecided(service, 1);

    log(
      `suppress: ${options.deliveries} deliveries (${admitted} admitted, ${guardFalse} guard_false, ${unchanged} unchanged)`,
    );
    const costs: Array<{ kind: string; count: number; work: Work }> = [];
    let decided = 1;
    const phases: Array<[Kind | 'suppressed', () => ReturnType<typeof deliver>, number]> = [
      ['admitted', () => deliver('opened', `r-${randomUUID()}`, 'etag-1'), admitted],
      [
        'suppressed',
        (() => {
          let i = 0;
          // Alternating, so both ways of being suppressed share the phase's time and load.
          return () => (i++ % 2 === 0 ? deliver('closed', 'r-any', 'etag-1') : deliver('opened', 'r-steady', 'etag-1'));
        })(),
        guardFalse + unchanged,
      ],
    ];
    for (const [kind, make, count] of phases) {
      const bodies = Array.from({ length: count }, make);
      decided += count;
      const target = decided;
      const { work } = await meterWork(service.databaseUrl, { service: service.pids }, async () => {
        await send(service, bodies, options.connections);
        await untilDecided(service, target);
      });
      costs.push({ kind, count, work });
    }
    const executions = await admittedCount(service);
    const wakeups = await untilStable(() => redis.xlen(stream));
    const decisions = await decisionsByReason(service);

    const perOccurrence = (work: Work, count: number, group: string) =>
      Math.round((work.cpuMicros[group] ?? 0) / count);
    process.stdout.write(
      `\n| Occurrences | count | service CPU µs each | PostgreSQL CPU µs each | transactions each | rows inserted each |\n|---|---|---|---|---|---|\n${costs
        .map(
          ({ kind, count, work }) =>
            `| ${kind} | ${count} | ${perOccurrence(work, count, 'service')} | ${perOccurrence(work, count, 'postgres')} | ${(work.transactions / count).toFixed(1)} | ${(work.rowsInserted / count).toFixed(1)} |`,
        )
        .join('\n')}\n\n`,
    );
    process.stdout.write(`decisions: ${decisions}\n`);
    process.stdout.write(
      `wakeups sent ${wakeups}, admitted executions ${executions} (the baseline's included): ${wakeups === executions ? 'equal (zero-token idle)' : 'NOT equal'}\n`,
    );
    const [admittedCost, suppressedCost] = costs.map(
      ({ work, count }) => ((work.cpuMicros.service ?? 0) + (work.cpuMicros.postgres ?? 0)) / count,
    );
    process.stdout.write(
      `a suppressed Occurrence costs ${((suppressedCost! / admittedCost!) * 100).toFixed(0)} % of an admitted one (service + PostgreSQL CPU)\n`,
    );
  } finally {
    await redis.del(stream).catch(() => undefined);
    redis.disconnect();
    await service.stop();
  }
}

/** A Mission that grants far more than the run needs, a signed source, and the guarded, prefiltered Trigger. */
async function setUp(service: ServiceProcess): Promise<string> {
  await command(service, 'PUT', '/v1/missions/m-suppress', {
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
  await command(service, 'PUT', '/v1/sources/s-suppress', {
    scheme: 'standard-webhooks',
    rateLimit: { perSecond: 100_000, burst: 100_000 },
  });
  const { secret } = await command(service, 'POST', '/v1/sources/s-suppress/keys', {});
  await command(service, 'PUT', '/v1/triggers/t-suppress', {
    missionId: 'm-suppress',
    type: 'webhook',
    source: { sourceId: 's-suppress', eventTypes: [] },
    guard: { pointer: '/action', equals: 'opened' },
    prefilters: [{ id: 'unchanged', version: 1, resourcePointer: '/resource/id', digestPointer: '/resource/etag' }],
  });
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the bindings read model catches up
  return String(secret);
}

function signer(secret: string) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return (action: string, resource: string, etag: string) => {
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({
      type: 'pull_request',
      action,
      resource: { id: resource, etag },
      pad: 'x'.repeat(700),
    });
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
}

/** Every delivery once, `connections` at a time; a non-2xx answer stops the bench (it would skew the figures). */
async function send(
  service: ServiceProcess,
  deliveries: Array<{ body: string; headers: Record<string, string> }>,
  connections: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < deliveries.length; i = next++) {
      const { body, headers } = deliveries[i]!;
      const response = await fetch(`${service.baseUrl}/v1/ingress/s-suppress`, { method: 'POST', body, headers });
      await response.arrayBuffer();
      if (response.status !== 202) throw new Error(`delivery answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

const decisionTypes = `('OccurrenceAdmitted', 'OccurrenceBlocked', 'OccurrenceSuppressed')`;

async function query<T>(service: ServiceProcess, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql.replaceAll('events', `${service.schema}.events`))).rows as T[];
  } finally {
    await client.end();
  }
}

async function untilDecided(service: ServiceProcess, count: number): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const [row] = await query<{ n: string }>(
      service,
      `SELECT count(*) AS n FROM events WHERE type IN ${decisionTypes}`,
    );
    if (Number(row!.n) >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.n} of ${count} Occurrences were decided`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function admittedCount(service: ServiceProcess): Promise<number> {
  const [row] = await query<{ n: string }>(
    service,
    `SELECT count(*) AS n FROM events WHERE type = 'OccurrenceAdmitted'`,
  );
  return Number(row!.n);
}

async function decisionsByReason(service: ServiceProcess): Promise<string> {
  const rows = await query<{ decision: string; n: string }>(
    service,
    `SELECT CASE WHEN type = 'OccurrenceAdmitted' THEN 'admitted' ELSE data->>'reason' END AS decision, count(*) AS n
       FROM events WHERE type IN ${decisionTypes} GROUP BY 1 ORDER BY 1`,
  );
  return rows.map((r) => `${r.n} ${r.decision}`).join(', ');
}

/** The dispatcher sends after commit: the count once it stopped moving for a second. */
async function untilStable(read: () => Promise<number>): Promise<number> {
  let last = await read();
  for (let still = 0; still < 10;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await read();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}
