import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';

/** A cursor as the lists write one (base64url JSON), with any content: what a client can forge. */
const forged = (...parts: string[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');

/**
 * SEC-4 OP-1 OP-2: cursors are opaque but not signed, so a client can send a well-formed one with numbers past the SQL
 * types they are compared with, or instants PostgreSQL refuses. Each is a 400 problem at ?cursor, never a 500.
 */
export function forgedCursorsSuite(kind: StoreKind): void {
  describe(`forged list cursors (${kind})`, () => {
    let t: TestApp;
    let occurrenceId: string;
    let executionId: string;

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      const put = (url: string, body: unknown) => t.request({ method: 'PUT', url, key: newKey(), body });
      expect(
        (
          await put('/v1/missions/m-c', {
            state: 'active',
            grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 }),
          })
        ).status,
      ).toBe(200);
      expect((await put('/v1/triggers/t-c', { expectedRevision: 0, missionId: 'm-c', type: 'manual' })).status).toBe(
        200,
      );
      const fired = await t.request({ method: 'POST', url: '/v1/triggers/t-c/occurrences', key: newKey(), body: {} });
      expect(fired.status).toBe(202);
      occurrenceId = fired.body.occurrenceId;
      executionId = `x-${occurrenceId}`;
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = (url: string) => t.request({ method: 'GET', url });

    it('SEC-4 OP-1 OP-2 a forged cursor past its SQL type, or naming an impossible instant, is 400 at ?cursor on every list', async () => {
      const lists: Array<[string, string[][]]> = [
        [
          '/v1/executions',
          [
            ['executions', '9223372036854775808'],
            ['executions', '9999999999999999999'],
          ],
        ],
        [
          '/v1/operator/dead-letters',
          [
            ['dead-letters', '9223372036854775808'],
            ['dead-letters', '9999999999999999999'],
          ],
        ],
        [
          '/v1/operator/occurrences',
          [
            ['occurrences', '0000-01-01T00:00:00.000Z', 'o-1'],
            ['occurrences', '2026-02-30T00:00:00.000Z', 'o-1'],
            ['occurrences', '1969-12-31T23:59:59.999Z', 'o-1'],
          ],
        ],
        [
          `/v1/operator/occurrences/${occurrenceId}/lineage`,
          [
            ['lineage-descendants', '2147483648', '1'],
            ['lineage-descendants', '1', '9223372036854775808'],
          ],
        ],
        [
          `/v1/executions/${executionId}/subscriptions`,
          [
            ['subscriptions', 'abc'],
            ['subscriptions', '1e400'],
            ['subscriptions', '9223372036854775808'],
          ],
        ],
      ];
      for (const [url, cursors] of lists)
        for (const parts of cursors) {
          const answer = await get(`${url}?cursor=${forged(...parts)}`);
          expect([url, parts, answer.status, answer.body?.code]).toEqual([url, parts, 400, 'BAD_REQUEST']);
          expect(answer.body.errors).toEqual([expect.objectContaining({ pointer: '?cursor' })]);
        }
    });

    it('OP-1 OP-2 the largest cursors the SQL types hold, and the earliest instant, still read', async () => {
      const items = async (url: string, parts: string[]) => {
        const answer = await get(`${url}?cursor=${forged(...parts)}`);
        expect([url, answer.status]).toEqual([url, 200]);
        return (answer.body.items ?? answer.body.descendants) as Array<{ executionId?: string }>;
      };
      // Newest first: every execution lies before the largest position
      expect((await items('/v1/executions', ['executions', '9223372036854775807'])).map((e) => e.executionId)).toEqual([
        executionId,
      ]);
      expect(await items('/v1/operator/dead-letters', ['dead-letters', '9223372036854775807'])).toEqual([]);
      expect(await items('/v1/operator/occurrences', ['occurrences', '1970-01-01T00:00:00.000Z', 'o-1'])).toEqual([]);
      expect(
        await items(`/v1/operator/occurrences/${occurrenceId}/lineage`, ['lineage-descendants', '2147483647', '1']),
      ).toEqual([]);
      expect(
        await items(`/v1/executions/${executionId}/subscriptions`, ['subscriptions', '9223372036854775807']),
      ).toEqual([]);
    });
  });
}
