import { randomUUID } from 'node:crypto';
import { until } from '../support/until.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';
import { definitionsTakeEffectSuite, deliver, sourceWithKey } from './definitions-take-effect.shared.js';

/**
 * How long another process may still verify a retired key: it is told through LISTEN/NOTIFY at once, and its
 * source cache's TTL bounds a missed notification (README, docs/architecture.md).
 */
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

  const listening = () => `LISTEN reveille_definitions_${first.schema}`;
  const listeners = async () =>
    (
      await first.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [
        listening(),
      ])
    ).rows[0]!.n;

  /**
   * `times` Triggers written through the first process, each with its own event type, and a delivery of that type
   * to the second process the instant the write answered (`before` runs ahead of each write): every one is bound.
   */
  const writeThenDeliver = async (name: string, times: number, before: () => Promise<unknown> = async () => {}) => {
    const { missionId, sourceId, secret } = await sourceWithKey(first, `${name}-${randomUUID().slice(0, 8)}`);
    const answers: Array<{ status: number; occurrences: unknown }> = [];
    for (let i = 0; i < times; i++) {
      await before();
      const written = await first.call('PUT', `/v1/triggers/t-${name}-${i}`, {
        missionId,
        type: 'webhook',
        source: { sourceId, eventTypes: [`${name}.${i}`] },
      });
      expect(written.status).toBe(200);
      const delivered = await deliver(second, sourceId, secret, { type: `${name}.${i}`, id: randomUUID() });
      answers.push({ status: delivered.status, occurrences: delivered.body.occurrences });
    }
    expect(answers).toEqual(
      Array.from({ length: times }, (_, i) => ({
        status: 202,
        occurrences: [{ triggerId: `t-${name}-${i}`, occurrenceId: expect.any(String), status: 'observed' }],
      })),
    );
  };

  it('WH-7 OC-1 a delivery to another process sharing the database, the instant a Trigger write answered, is bound (20 times)', async () => {
    await writeThenDeliver('across', 20);
  });

  it('WH-7 a delivery to another process that was never told of a Trigger write is bound, not acknowledged as ignored (10 times)', async () => {
    // Both listeners lose their connection (each reconnects after a second): each write is announced to no one.
    await writeThenDeliver('untold', 10, () =>
      first.sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1`, [listening()]),
    );
    // The tests below count on both processes listening again.
    await until(async () => (await listeners()) === 2, 10_000);
  }, 30_000);

  it('WH-3 a key added through one process is accepted by another at once, and a key retired there refused at once', async () => {
    const { missionId, sourceId, secret } = await sourceWithKey(first, `told-${randomUUID().slice(0, 8)}`);
    expect(
      (await first.call('PUT', '/v1/triggers/t-told', { missionId, type: 'webhook', source: { sourceId } })).status,
    ).toBe(200);
    // The second process remembers the source with its first key only.
    expect((await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() })).status).toBe(202);
    const added = await first.call('POST', `/v1/sources/${sourceId}/keys`, { keyId: 'k2' });
    expect(added.status).toBe(201);
    expect((await deliver(second, sourceId, added.body.secret, { type: 'x', id: randomUUID() })).status).toBe(202);
    expect((await first.call('DELETE', `/v1/sources/${sourceId}/keys/k1`, { reason: 'rotated' })).status).toBe(200);
    const refused = await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'signature_invalid' });
  });

  it('WH-3 a key retired through one process is refused by another within the cache bound even when no notification arrives', async () => {
    const { missionId, sourceId, secret } = await sourceWithKey(first, `two-${randomUUID().slice(0, 8)}`);
    expect(
      (await first.call('PUT', '/v1/triggers/t-two', { missionId, type: 'webhook', source: { sourceId } })).status,
    ).toBe(200);
    // The other process verifies with the key (and so remembers the source) before it is retired.
    const deadline = Date.now() + 5_000;
    while ((await deliver(second, sourceId, secret, { type: 'x', id: randomUUID() })).status !== 202)
      if (Date.now() > deadline) throw new Error('the second process never accepted the key');
    // Both listeners lose their connection (each reconnects after a second): the retirement is announced to no one.
    const cut = await first.sql.query<{ n: number }>(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE query = $1`,
      [listening()],
    );
    expect(cut.rows[0]!.n).toBe(2);
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
