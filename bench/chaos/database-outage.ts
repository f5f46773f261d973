import { startService } from '../service-process.js';
import { type Ledger, settledLedger } from './ledger.js';
import { freePort, peakRssOf, webhookSource } from './kill-storm.js';
import { count5xx, newTally, Producer } from './producer.js';
import { ThrowawayCluster } from './throwaway-cluster.js';

export interface OutageResult extends Ledger {
  outages: Array<{ mode: 'fast' | 'immediate'; downMs: number; recoveryMs: number; acksWhileDown: number }>;
  serverErrors: number;
  unavailable: number;
  peakRssMiB: number;
}

/**
 * Retrying producers deliver while PostgreSQL (a cluster of the harness's own) is stopped, cleanly and
 * crash-style: the service answers 503 meanwhile — never a 202 it cannot keep, never a 500 — and accepts
 * again once the database is back (WH-7, OP-4).
 */
export async function databaseOutage(options: {
  seconds: number;
  outageMs: number;
  concurrency?: number;
  log?: (line: string) => void;
}): Promise<OutageResult> {
  const log = options.log ?? (() => undefined);
  const cluster = ThrowawayCluster.create(await freePort());
  cluster.start();
  const service = await startService(await freePort(), { DATABASE_URL: cluster.url });
  try {
    const secret = await webhookSource(service);
    const producer = new Producer(`${service.baseUrl}/v1/ingress/s-chaos`, secret);
    const tally = newTally();
    let stop = false;
    let next = 0;
    const senders = Array.from({ length: options.concurrency ?? 8 }, async () => {
      while (!stop) await producer.deliver(`outage-${next++}`, { type: 'push' }, tally);
    });
    const outages: OutageResult['outages'] = [];
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const gap = Math.max(2_000, (options.seconds * 1000 - 2 * options.outageMs) / 3);
    for (const mode of ['fast', 'immediate'] as const) {
      await pause(gap);
      cluster.stop(mode);
      const down = Date.now();
      log(`  PostgreSQL stopped (${mode}) after ${tally.acked.size} acknowledged deliveries`);
      await pause(options.outageMs);
      // An answer in flight when the stop returned was committed before it: 100 ms of grace.
      const acksWhileDown = tally.ackTimes.filter((t) => t > down + 100).length;
      cluster.start();
      const up = Date.now();
      const acksAtUp = tally.ackTimes.length;
      while (tally.ackTimes.length === acksAtUp) await pause(5);
      outages.push({ mode, downMs: up - down, recoveryMs: tally.ackTimes[acksAtUp]! - up, acksWhileDown });
    }
    await pause(gap);
    stop = true;
    await Promise.all(senders);
    const ledger = await settledLedger(service.databaseUrl, service.schema, tally.acked);
    return {
      ...ledger,
      outages,
      serverErrors: count5xx(tally, [503]),
      unavailable: tally.statuses.get(503) ?? 0,
      peakRssMiB: Math.round(Math.max(...service.pids.map(peakRssOf)) / 1024),
    };
  } finally {
    await service.stop().catch(() => undefined);
    cluster.destroy();
  }
}
