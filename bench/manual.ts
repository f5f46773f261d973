/**
 * Manual fires per second end to end — HTTP POST with `?wait=decision` until the admitted decision
 * is visible — at 16 connections, beside a raw `pg` INSERT of an occurrence row in the same run.
 * CPU per fire (the service's process and its PostgreSQL backends, from /proc) is reported too: on a
 * shared machine it moves less than the rate does.
 *
 *   node dist/bench/main.js manual [--seconds 10] [--connections 16]
 */
import { benchArgs } from './bench-args.js';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { backendMicros, CLOCK_TICKS, cpuTicks } from './cpu.js';
import { rawInsertRate } from './raw-baseline.js';
import { command, startService } from './service-process.js';

const TRIGGERS = 16;
const log = (line: string) => process.stderr.write(`${line}\n`);

export async function manualBench(args: string[]): Promise<void> {
  const given = benchArgs('manual', args, { values: ['--seconds', '--connections'] });
  const seconds = given.number('--seconds', 10, { min: 1 });
  const connections = given.number('--connections', 16, { min: 1, integer: true });
  // Names the service's PostgreSQL sessions so their backends' CPU can be attributed.
  const appName = `reveille-manual-${process.pid}`;
  const service = await startService(3800 + Math.floor(Math.random() * 90), { PGAPPNAME: appName });
  const admin = new pg.Client({ connectionString: service.databaseUrl });
  await admin.connect();
  const backends = async () =>
    (
      await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [appName])
    ).rows.map((r) => r.pid);
  try {
    // Unrelated Missions admit in parallel (AD-5); one Mission's admissions share its budget stream.
    for (let i = 0; i < TRIGGERS; i++) {
      await command(service, 'PUT', `/v1/missions/m-${i}`, {
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
      await command(service, 'PUT', `/v1/triggers/t-${i}`, { missionId: `m-${i}`, type: 'manual' });
    }
    const token = await service.token('occurrences:write');
    let next = 0;
    log(`manual: ${seconds}s at ${connections} connections, ${TRIGGERS} Triggers on as many Missions, ?wait=decision`);
    const [serviceBefore, pgBefore] = [await cpuTicks(service.pids), await cpuTicks(await backends())];
    const result = await autocannon({
      url: service.baseUrl,
      connections,
      duration: seconds,
      requests: [
        {
          setupRequest: (request: Record<string, unknown>) => ({
            ...request,
            method: 'POST',
            path: `/v1/triggers/t-${next++ % TRIGGERS}/occurrences?wait=decision`,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'idempotency-key': randomUUID(),
            },
            body: JSON.stringify({ input: { n: next } }),
          }),
        },
      ],
    } as unknown as autocannon.Options);
    const [serviceAfter, pgAfter] = [await cpuTicks(service.pids), await cpuTicks(await backends())];
    const fires = result.statusCodeStats?.['200']?.count ?? 0;
    const decided = fires / seconds;
    const serviceMicros = (backendMicros(serviceBefore, serviceAfter) ?? NaN) / fires;
    const pgMicros = (backendMicros(pgBefore, pgAfter) ?? NaN) / fires;
    const raw = await rawInsertRate(service.databaseUrl, service.schema, connections, Math.min(seconds, 5));
    process.stdout.write(
      `\n| what | per second | p50 ms | p99 ms | manual ÷ raw |\n|---|---|---|---|---|\n` +
        `| manual fire → admitted decision visible | ${decided.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${(decided / raw).toFixed(3)} |\n` +
        `| raw pg INSERT (same run) | ${raw.toFixed(0)} | | | 1 |\n`,
    );
    process.stdout.write(
      `\nCPU per fire: service ${serviceMicros.toFixed(0)} µs, its PostgreSQL backends ${pgMicros.toFixed(0)} µs (${CLOCK_TICKS} Hz ticks)\n`,
    );
    process.stdout.write(
      `\nanswers: ${JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])))}\n`,
    );
  } finally {
    await admin.end();
    await service.stop();
  }
}
