import { randomUUID } from 'node:crypto';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { definitionsTakeEffectSuite, deliver, sourceWithKey } from './definitions-take-effect.shared.js';

/** How long another process may still verify a retired key: its source cache's TTL (README, docs/architecture.md). */
const OTHER_PROCESS_BOUND_MS = 1_000;
const SCOPE = 'missions:write sources:write triggers:write';

describe('definitions take effect at once: `reveille serve` on PostgreSQL, folds in the background thread', () => {
  let first: ServeProcess;
  let second: ServeProcess;

  beforeAll(async () => {
    first = await startServe({ background: 'thread', scope: SCOPE });
    second = await startServe({ background: 'thread', scope: SCOPE, joining: first });
  }, 180_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  definitionsTakeEffectSuite(() => first);

  it('WH-3 a key retired through one process is refused by another sharing the database within the cache bound', async () => {
    const { missionId, sourceId, secret } = await sourceWithKey(first, `two-${randomUUID().slice(0, 8)}`);
    expect(
      (await first.call('PUT', '/v1/triggers/t-two', { missionId, type: 'webhook', source: { sourceId } })).status,
    ).toBe(200);
    // The other process verifies with the key (and so remembers the source) before it is retired.
    const deadline = Date.now() + 5_000;
    while ((await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() })).status !== 202)
      if (Date.now() > deadline) throw new Error('the second process never accepted the key');
    expect((await first.call('DELETE', `/v1/sources/${sourceId}/keys/k1`, { reason: 'leaked' })).status).toBe(200);
    const retiredAt = performance.now();
    let refusedAfter: number | null = null;
    while (performance.now() - retiredAt < OTHER_PROCESS_BOUND_MS + 1_000) {
      const answer = await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() });
      if (answer.status === 401) {
        expect(answer.body.code).toBe('signature_invalid');
        refusedAfter = performance.now() - retiredAt;
        break;
      }
      expect(answer.status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(refusedAfter).not.toBeNull();
    // The bound plus one request and poll on a busy machine; a longer TTL (or none) fails here.
    expect(refusedAfter!).toBeLessThanOrEqual(OTHER_PROCESS_BOUND_MS + 300);
    // And it stays refused.
    expect((await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() })).status).toBe(401);
  }, 30_000);
});
