/**
 * Manual fires per second end to end — HTTP POST with `?wait=decision` until the admitted decision
 * is visible — at 16 connections, beside a raw `pg` INSERT of an occurrence row in the same run.
 *
 *   node dist/bench/main.js manual [--seconds 10] [--connections 16]
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { rawInsertRate } from './raw-baseline.js';
import { command, startService } from './service-process.js';

const TRIGGERS = 16;
const log = (line: string) => process.stderr.write(`${line}\n`);

export async function manualBench(args: string[]): Promise<void> {
  const value = (name: string, fallback: number) =>
    args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback;
  const seconds = value('seconds', 10);
  const connections = value('connections', 16);
  const service = await startService(3800 + Math.floor(Math.random() * 90));
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
    const decided = (result.statusCodeStats?.['200']?.count ?? 0) / seconds;
    const raw = await rawInsertRate(service.databaseUrl, service.schema, connections, Math.min(seconds, 5));
    process.stdout.write(
      `\n| what | per second | p50 ms | p99 ms | manual ÷ raw |\n|---|---|---|---|---|\n` +
        `| manual fire → admitted decision visible | ${decided.toFixed(0)} | ${result.latency.p50} | ${result.latency.p99} | ${(decided / raw).toFixed(3)} |\n` +
        `| raw pg INSERT (same run) | ${raw.toFixed(0)} | | | 1 |\n`,
    );
    process.stdout.write(
      `\nanswers: ${JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count])))}\n`,
    );
  } finally {
    await service.stop();
  }
}
