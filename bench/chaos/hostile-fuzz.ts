import { randomUUID } from 'node:crypto';
import { loadOrCreateDevKeys, mintDevToken } from '../../src/adapters/http/auth/dev-keys.js';
import { startService } from '../service-process.js';
import { dropSchema, freePort, peakRssOf, webhookSource } from './kill-storm.js';
import { Producer } from './producer.js';

export interface FuzzResult {
  requests: number;
  statuses: Record<string, number>;
  /** Any 5xx: hostile content must be a 4xx, never an error a producer retries forever (SEC-4, WH-1). */
  serverErrors: number;
  peakRssMiB: number;
}

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Bodies that are well-formed JSON text but hostile: deep nesting, non-finite numbers, NUL, lone surrogates. */
const HOSTILE_JSON = [
  `{"type":"push","deep":${nested(10_000)}}`,
  `{"type":"push","deep":${nested(100_000)}}`,
  '{"type":"push","n":1e999}',
  '{"type":"push","n":-1e999}',
  '{"type":"push","text":"a\\u0000b"}',
  '{"type":"push","text":"\\ud800"}',
  '{"type":"push","\\u0000key":1}',
  '{"type":"\\udfff"}',
];

/** Hostile webhook deliveries (signed, so they pass authentication) and REST bodies, ids and token claims. */
export async function hostileFuzz(options: { rounds: number; log?: (line: string) => void }): Promise<FuzzResult> {
  const port = await freePort();
  const service = await startService(port);
  const statuses: Record<string, number> = {};
  let requests = 0;
  const count = (status: number) => {
    requests += 1;
    statuses[status] = (statuses[status] ?? 0) + 1;
  };
  try {
    const secret = await webhookSource(service);
    const producer = new Producer(`${service.baseUrl}/v1/ingress/s-chaos`, secret);
    const token = await service.token();
    const keys = await loadOrCreateDevKeys(service.dataDir);
    const nulTenant = await mintDevToken(keys, {
      tenant: 'bench\u0000x',
      scope: 'missions:write operator:read',
      subject: 'bench',
      ttlSeconds: 300,
      issuer: 'reveille-dev',
      audience: 'reveille',
    });
    const rest = (method: string, path: string, body: string | undefined, bearer = token) =>
      fetch(`${service.baseUrl}${path}`, {
        method,
        body,
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
      }).then(async (r) => (await r.arrayBuffer(), count(r.status)));
    for (let round = 0; round < options.rounds; round++) {
      for (const hostile of HOSTILE_JSON) {
        const id = `fuzz-${round}-${randomUUID()}`;
        // Signed over the hostile text itself: the signature is valid, only the content is hostile.
        const signedHostile = producer.signedText(id, hostile, String(Math.floor(Date.now() / 1000)));
        const delivered = await fetch(`${service.baseUrl}/v1/ingress/s-chaos`, {
          method: 'POST',
          body: hostile,
          headers: signedHostile,
        });
        await delivered.arrayBuffer();
        count(delivered.status);
        await rest('PUT', '/v1/missions/m-fuzz', hostile.replace('"type":"push"', '"state":"active","grants":{}'));
        await rest('PUT', '/v1/missions/m-fuzz', `{"state":"active","reason":${hostile},"grants":{}}`);
        await rest('POST', '/v1/triggers/t-chaos/occurrences', `{"input":${hostile}}`);
        await rest('PUT', '/v1/missions/m-fuzz', `{"expectedRevision":1e999,"state":"active","grants":{}}`);
      }
      await rest('GET', '/v1/missions/m%00x', undefined);
      await rest('GET', '/v1/operator/triggers/t%00x', undefined);
      await rest('GET', '/v1/missions/m-1', undefined, nulTenant);
      options.log?.(`  round ${round + 1}/${options.rounds}: ${requests} requests`);
    }
    const serverErrors = Object.entries(statuses)
      .filter(([status]) => Number(status) >= 500)
      .reduce((sum, [, n]) => sum + n, 0);
    return {
      requests,
      statuses,
      serverErrors,
      peakRssMiB: Math.round(Math.max(...service.pids.map(peakRssOf)) / 1024),
    };
  } finally {
    await service.stop();
    await dropSchema(service.databaseUrl, service.schema);
  }
}
