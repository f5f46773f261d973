import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { command, type ServiceProcess, startService } from '../service-process.js';
import { type Ledger, settledLedger } from './ledger.js';
import { count5xx, inLanes, newTally, Producer } from './producer.js';

export interface KillStormResult extends Ledger {
  kills: number;
  /** 5xx other than 503 store_unavailable: a producer would retry them, but they are bugs. */
  serverErrors: number;
  unavailable: number;
  connectionErrors: number;
  gaveUp: number;
  /** Longest time from a SIGKILL to the next acknowledged delivery (restart included). */
  maxRecoveryMs: number;
  peakRssMiB: number;
  seconds: number;
}

/**
 * Signed deliveries from `concurrency` retrying producers while the service is SIGKILLed `kills` times
 * and restarted on the same database: every acknowledged delivery must become exactly one Occurrence,
 * and every Occurrence must be decided (WH-7, OC-3, AD-1).
 */
export async function killStorm(options: {
  deliveries: number;
  kills: number;
  concurrency?: number;
  log?: (line: string) => void;
}): Promise<KillStormResult> {
  const log = options.log ?? (() => undefined);
  const port = await freePort();
  let service = await startService(port);
  const shared = { schema: service.schema, dataDir: service.dataDir };
  const started = Date.now();
  let peakRss = 0;
  try {
    const secret = await webhookSource(service);
    const producer = new Producer(`${service.baseUrl}/v1/ingress/s-chaos`, secret);
    const tally = newTally();
    let kills = 0;
    const recoveries: number[] = [];
    // One round per kill (and a last one without): each kill lands in the middle of a round's traffic, with
    // requests in flight, and the round's producers retry through the restart before the next one starts.
    const rounds = options.kills + 1;
    const perRound = Math.ceil(options.deliveries / rounds);
    for (let round = 0; round < rounds; round++) {
      const first = round * perRound;
      const count = Math.min(perRound, options.deliveries - first);
      const ackedBefore = tally.acked.size;
      let killing: Promise<void> | null = null;
      let killedAt = { at: 0, acks: 0 };
      const killHalfway = () => {
        if (killing || round === options.kills || tally.acked.size - ackedBefore < count / 2) return;
        killing = (async () => {
          peakRss = Math.max(peakRss, ...service.pids.map(peakRssOf));
          await sigkill(service.pids);
          killedAt = { at: Date.now(), acks: tally.ackTimes.length };
          log(`  SIGKILL after ${tally.acked.size} acknowledged deliveries; restarting`);
          service = await startService(port, {}, shared);
          kills += 1;
        })();
      };
      await inLanes(count, options.concurrency ?? 16, async (i) => {
        await producer.deliver(`chaos-${first + i}`, { type: 'push', n: first + i }, tally);
        killHalfway();
      });
      if (killing) {
        await killing;
        // The restarted process may accept deliveries before it reports ready: counted from the kill.
        const firstAck = tally.ackTimes[killedAt.acks];
        if (firstAck !== undefined) recoveries.push(firstAck - killedAt.at);
      }
    }
    peakRss = Math.max(peakRss, ...service.pids.map(peakRssOf));
    const ledger = await settledLedger(service.databaseUrl, service.schema, tally.acked);
    return {
      ...ledger,
      kills,
      serverErrors: count5xx(tally, [503]),
      unavailable: tally.statuses.get(503) ?? 0,
      connectionErrors: tally.connectionErrors,
      gaveUp: tally.gaveUp,
      maxRecoveryMs: Math.max(0, ...recoveries),
      peakRssMiB: Math.round(peakRss / 1024),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await service.stop();
    await dropSchema(service.databaseUrl, shared.schema);
  }
}

/** A Mission, a source with a key and a webhook Trigger on every event type; answers the key's secret. */
export async function webhookSource(service: ServiceProcess): Promise<string> {
  await command(service, 'PUT', '/v1/missions/m-chaos', {
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
  await command(service, 'PUT', '/v1/sources/s-chaos', {
    scheme: 'standard-webhooks',
    rateLimit: { perSecond: 100_000, burst: 100_000 },
  });
  const { secret } = await command(service, 'POST', '/v1/sources/s-chaos/keys', {});
  await command(service, 'PUT', '/v1/triggers/t-chaos', {
    missionId: 'm-chaos',
    type: 'webhook',
    source: { sourceId: 's-chaos', eventTypes: [] },
  });
  // Until the bindings read model has the Trigger, a delivery is accepted with no Occurrence: probe first.
  const probe = new Producer(`${service.baseUrl}/v1/ingress/s-chaos`, secret as string);
  for (let i = 0; ; i++) {
    const { body, headers } = probe.signed(`probe-${i}`, { type: 'probe' });
    const answer = (await (
      await fetch(`${service.baseUrl}/v1/ingress/s-chaos`, { method: 'POST', body, headers })
    ).json()) as { occurrences?: unknown[] };
    if ((answer.occurrences?.length ?? 0) > 0) break;
    if (i > 100) throw new Error('the Trigger never bound its source');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return secret as string;
}

export async function sigkill(pids: number[]): Promise<void> {
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  for (const pid of pids) while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 10));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Peak resident memory in KiB (VmHWM), 0 once the process is gone. */
export function peakRssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => admin.end());
}
