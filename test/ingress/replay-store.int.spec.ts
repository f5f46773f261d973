import type { SqlClient } from '../../src/projections/sql-client.js';
import { ingressMigrations } from '../../src/adapters/ingress/ingress.migrations.js';
import { recordDelivery, type ReplayVerdict } from '../../src/adapters/ingress/replay-store.js';
import { dropSchema, freshPglite, freshPostgres } from '../support/databases.js';

const entry = (deliveryId: string, signature: string) => ({
  tenant: 'acme',
  sourceId: 's-1',
  deliveryId,
  signature,
  horizonSeconds: 600,
});
const count = (verdicts: ReplayVerdict[], verdict: ReplayVerdict) => verdicts.filter((v) => v === verdict).length;

describe.each(['postgres', 'pglite'] as const)(
  'DD-2 WH-4 auth replay store under concurrent deliveries (%s)',
  (kind) => {
    let sql: SqlClient;
    let schema: string | null = null;
    beforeAll(async () => {
      if (kind === 'postgres') ({ sql, schema } = await freshPostgres(ingressMigrations));
      else sql = await freshPglite(ingressMigrations);
    });
    afterAll(async () => {
      await sql?.close();
      if (schema) await dropSchema(schema);
    });

    it('the same delivery arriving 20 times at once is a first sighting exactly once, a redelivery otherwise', async () => {
      const verdicts = await Promise.all(
        Array.from({ length: 20 }, () =>
          recordDelivery(sql, entry('d-same', 'sig-same'), { flushWithNextCommit: true }),
        ),
      );
      expect(count(verdicts, 'first')).toBe(1);
      expect(count(verdicts, 'redelivery')).toBe(19);
    });

    it('a captured signature replayed under new delivery ids in the same instant is refused, the original accepted once', async () => {
      const verdicts = await Promise.all([
        recordDelivery(sql, entry('d-orig', 'sig-captured'), { flushWithNextCommit: true }),
        ...Array.from({ length: 10 }, (_, i) =>
          recordDelivery(sql, entry(`d-forged-${i}`, 'sig-captured'), { flushWithNextCommit: true }),
        ),
      ]);
      expect(count(verdicts, 'first')).toBe(1);
      expect(count(verdicts, 'replayed_signature')).toBe(10);
    });

    it('unrelated deliveries at once are each a first sighting', async () => {
      const verdicts = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          recordDelivery(sql, entry(`d-${i}`, `sig-${i}`), { flushWithNextCommit: true }),
        ),
      );
      expect(verdicts).toEqual(Array(50).fill('first'));
      expect(
        await Promise.all([
          recordDelivery(sql, entry('d-3', 'sig-3'), { flushWithNextCommit: false }),
          recordDelivery(sql, entry('d-new', 'sig-3'), { flushWithNextCommit: false }),
        ]),
      ).toEqual(['redelivery', 'replayed_signature']);
    });
  },
);
