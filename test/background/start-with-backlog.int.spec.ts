import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { dropSchema } from '../support/databases.js';
import { missionGrants } from '../support/grants.js';
import { until } from '../support/until.js';

/**
 * A service started over a backlog of undecided Occurrences decides them with its first pass. Its subscriptions
 * used to start in a global module's bootstrap hook, which runs before CqrsModule's registers the command
 * handlers, so admission's first pass failed with "No handler found" on every such start (retried, but logged).
 */
describe('OP-4 AD-1 a service started over a backlog', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let t: TestApp | undefined;

  afterAll(async () => {
    await t?.close();
    await dropSchema(schema);
  });

  it('decides the backlog with its first pass, no handler missing', async () => {
    const before = await startTestApp('postgres', { autostart: false, database: schema });
    const fired: string[] = [];
    try {
      const put = (url: string, body: unknown) => before.request({ method: 'PUT', url, key: newKey(), body });
      expect(
        (
          await put('/v1/missions/m-1', {
            state: 'active',
            grants: missionGrants({ maxExecutionsPerHour: 100, maxConcurrent: 10 }),
          })
        ).status,
      ).toBe(200);
      expect((await put('/v1/triggers/t-1', { missionId: 'm-1', type: 'manual' })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const answer = await before.request({
          method: 'POST',
          url: '/v1/triggers/t-1/occurrences',
          key: newKey(),
          body: { input: { i } },
        });
        expect(answer.status).toBe(202);
        fired.push(answer.body.occurrenceId);
      }
    } finally {
      await before.close();
    }

    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      t = await startTestApp('postgres', { database: schema });
      const decided = async () => {
        const { rows } = await t!.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceAdmitted'`,
        );
        return rows[0]!.n;
      };
      await until(async () => (await decided()) >= fired.length);
      const messages = errors.mock.calls.map((call) => String(call[0]));
      expect(messages.filter((m) => /no handler/i.test(m))).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });
});
