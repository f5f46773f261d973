import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { ScheduleMaterializer } from '../../src/adapters/scheduler/schedule-materializer.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/manual-clock.js';
import { at, firedOf, GRANTS, minute, minutes, reviseSchedule } from './schedule-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-api';
const catchUp = {
  engine: 'cron@1',
  expression: '* * * * *',
  timezone: 'UTC',
  missed: { policy: 'catch_up', bound: 5, overflow: 'hold' },
};

export function scheduleApiSuite(kind: StoreKind): void {
  describe(`SC-5 OP-1 schedule HTTP API (${kind})`, () => {
    let t: TestApp;
    const clock = new ManualClock(at('00:00:00'));
    const tick = async (iso: string) => {
      clock.set(iso);
      await new ScheduleMaterializer({ store: t.infra.store, sql: t.sql, signal: t.infra.signal, clock }).runOnce();
      await t.catchUp();
    };
    const operatorRow = async (triggerId: string) =>
      (
        await t.request({
          method: 'GET',
          url: `/v1/operator/triggers/${triggerId}`,
          token: await t.token({ scope: 'operator:read' }),
        })
      ).body;
    const decide = (triggerId: string, action: 'release' | 'dismiss', scope = 'operator:recover') =>
      t.token({ scope }).then((token) =>
        t.request({
          method: 'POST',
          url: `/v1/operator/triggers/${triggerId}/schedule/${action}`,
          token,
          key: newKey(),
          body: { reason: 'ops decided' },
        }),
      );

    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      expect(
        (
          await t.request({
            method: 'PUT',
            url: `/v1/missions/${MISSION}`,
            key: newKey(),
            body: { state: 'active', grants: GRANTS },
          })
        ).status,
      ).toBe(200);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('SC-5 a held range shows on the operator row, does not stop later instants, and is released (≤ bound each) or dismissed', async () => {
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId: 'held',
        missionId: MISSION,
        activatedAt: at('00:00:30'),
        schedule: catchUp,
      });
      await t.catchUp();
      await tick(minute(1));
      await tick(at('00:52:30'));
      await tick(at('00:53:10'));
      expect(await firedOf(t.sql, TENANT, 'held')).toEqual([...minutes(1, 6), minute(52), minute(53)]);
      const held = await operatorRow('held');
      expect(held).toMatchObject({
        health: 'held',
        nextFireAt: minute(54),
        tzdataDrift: false,
        recovery: [
          { action: 'release', method: 'POST', href: '/v1/operator/triggers/held/schedule/release' },
          { action: 'dismiss', method: 'POST', href: '/v1/operator/triggers/held/schedule/dismiss' },
        ],
        schedule: {
          engine: 'cron@1',
          boundary: minute(53),
          skipped: [],
          held: [{ from: minute(7), to: minute(51), count: 45 }],
        },
      });

      expect((await decide('held', 'release', 'operator:read')).status).toBe(403);
      // Audited like a recovery: an operator says why, or nothing is decided
      const token = await t.token({ scope: 'operator:recover' });
      for (const action of ['release', 'dismiss'])
        for (const body of [{}, { reason: '  ' }, { reason: 7 }, { reason: 'x'.repeat(2001) }]) {
          const refused = await t.request({
            method: 'POST',
            url: `/v1/operator/triggers/held/schedule/${action}`,
            token,
            key: newKey(),
            body,
          });
          expect([action, body, refused.status, refused.body.errors?.[0]?.pointer]).toEqual([
            action,
            body,
            400,
            '/reason',
          ]);
        }
      expect((await operatorRow('held')).schedule.held).toEqual([{ from: minute(7), to: minute(51), count: 45 }]);
      const first = await decide('held', 'release');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        action: 'release',
        released: minutes(7, 11),
        held: [{ from: minute(12), to: minute(51), count: 40 }],
        position: expect.any(Number),
      });
      expect((await decide('held', 'release')).body.released).toEqual(minutes(12, 16));
      const dismissed = await decide('held', 'dismiss');
      expect(dismissed.body).toMatchObject({
        action: 'dismiss',
        released: [],
        dismissed: [{ from: minute(17), to: minute(51), count: 35 }],
        held: [],
      });
      for (const action of ['release', 'dismiss'] as const) {
        const none = await decide('held', action);
        expect(none.status).toBe(409);
        expect(none.body).toMatchObject({ code: 'nothing_held' });
      }
      expect(await firedOf(t.sql, TENANT, 'held')).toEqual([...minutes(1, 16), minute(52), minute(53)]);

      await t.catchUp();
      expect(await operatorRow('held')).toMatchObject({
        health: 'ok',
        recovery: [],
        schedule: { held: [], skipped: [{ from: minute(17), to: minute(51), count: 35, cause: 'dismissed' }] },
      });
      // SC-4: delayed and released fires keep their intended instant; fired_at comes at admission, never before it
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const { rows } = await t.sql.query<{ scheduled: string; fired: string }>(
        `SELECT data->'request'->>'scheduledAt' AS scheduled, data->>'firedAt' AS fired FROM events WHERE type = 'OccurrenceAdmitted' AND data->'request'->>'triggerId' = 'held'`,
      );
      expect(rows).toHaveLength(18);
      rows.forEach((r) => expect(Date.parse(r.fired)).toBeGreaterThan(Date.parse(r.scheduled)));
    });

    it('SEC-3 SC-5 a release whose answer was lost (committed, holder gone) replays on retry: no second release, no 409', async () => {
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId: 'held-retry',
        missionId: MISSION,
        activatedAt: at('00:53:30'),
        schedule: catchUp,
      });
      await t.catchUp();
      await tick(minute(54));
      await tick(at('01:40:30'));
      expect((await operatorRow('held-retry')).schedule.held).toHaveLength(1);
      const token = await t.token({ scope: 'operator:recover' });
      const key = newKey();
      const release = () =>
        t.request({
          method: 'POST',
          url: '/v1/operator/triggers/held-retry/schedule/release',
          token,
          key,
          body: { reason: 'ops decided' },
        });
      const first = await release();
      expect(first.status).toBe(200);
      const firedAfterFirst = await firedOf(t.sql, TENANT, 'held-retry');
      // As a crash between commit and answer leaves it: the key in flight, its holder gone, no answer stored.
      await t.sql.query(
        `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_body = NULL,
           lease_until = now() - interval '1 minute', holder = NULL WHERE key = $1`,
        [key],
      );
      const retry = await release();
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await firedOf(t.sql, TENANT, 'held-retry')).toEqual(firedAfterFirst);
    });

    it('SC-7 the operator row shows drift when the pinned tz data is not the running one', async () => {
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId: 'old-tz',
        missionId: MISSION,
        activatedAt: at('00:00:30'),
        schedule: catchUp,
        tzdataVersion: '2019a',
      });
      await t.catchUp();
      expect(await operatorRow('old-tz')).toMatchObject({ tzdataDrift: true, schedule: { tzdataVersion: '2019a' } });
      const list = (
        await t.request({
          method: 'GET',
          url: '/v1/operator/triggers',
          token: await t.token({ scope: 'operator:read' }),
        })
      ).body.items;
      expect(list.find((row: { triggerId: string }) => row.triggerId === 'old-tz')).toMatchObject({
        tzdataDrift: true,
        nextFireAt: expect.any(String),
      });
    });

    it('CP-1 SC-1 a schedule Trigger is accepted over HTTP and pins the running tz data', async () => {
      const body = {
        expectedRevision: 0,
        missionId: MISSION,
        type: 'schedule',
        schedule: { engine: 'cron@1', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
      };
      expect((await t.request({ method: 'PUT', url: '/v1/triggers/nightly', key: newKey(), body })).status).toBe(200);
      expect((await t.request({ method: 'GET', url: '/v1/triggers/nightly' })).body).toMatchObject({
        type: 'schedule',
        pins: { tzdataVersion: process.versions.tz },
      });
      expect((await t.request({ method: 'GET', url: '/v1/capabilities' })).body.capabilities).toContain(
        'wf.scheduled-initiation',
      );
      const bad = await t.request({
        method: 'PUT',
        url: '/v1/triggers/bad',
        key: newKey(),
        body: { ...body, schedule: { ...body.schedule, expression: '61 * * * *' } },
      });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ code: 'invalid_definition', errors: [{ pointer: '/schedule/expression' }] });
    });

    describe('SC-2 previews', () => {
      const previewAs = (body: unknown, headers: Record<string, string> = {}) =>
        t
          .token({ scope: 'operator:read' })
          .then((token) => t.request({ method: 'POST', url: '/v1/schedules/preview', token, body, headers }));

      it('POST /v1/schedules/preview computes instants with local time and DST notes, without an Idempotency-Key', async () => {
        const response = await previewAs({
          schedule: { engine: 'cron@1', expression: '30 2 * * *', timezone: 'Europe/Berlin' },
          after: '2026-03-28T00:00:00Z',
          count: 2,
        });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          instants: [
            { scheduledAt: '2026-03-28T01:30:00.000Z', local: '2026-03-28T02:30:00+01:00', note: null },
            { scheduledAt: '2026-03-29T01:30:00.000Z', local: '2026-03-29T03:30:00+02:00', note: 'shifted_forward' },
          ],
          engine: 'cron@1',
          tzdataVersion: process.versions.tz,
        });
      });

      it('answers 422 invalid_definition with pointers into the body, and 400 for a malformed window', async () => {
        const invalid = await previewAs({
          schedule: { engine: 'cron@1', expression: '* * *', timezone: 'Mars/Olympus' },
        });
        expect(invalid.status).toBe(422);
        expect(invalid.body.code).toBe('invalid_definition');
        expect(invalid.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
          '/schedule/expression',
          '/schedule/timezone',
        ]);
        expect((await previewAs({ after: '2026-01-01T00:00:00Z' })).body).toMatchObject({
          status: 422,
          errors: [{ pointer: '/schedule' }],
        });
        const window = await previewAs({
          schedule: { engine: 'cron@1', expression: '* * * * *', timezone: 'UTC' },
          after: 'yesterday',
          count: 0,
        });
        expect(window.status).toBe(400);
        expect(window.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/after', '/count']);
      });

      it('api.md Conventions (Validation), SC-2: a body count that is a string is a wrong type, 400 at /count, not coerced; the query parameter is text and still reads', async () => {
        const schedule = { engine: 'cron@1', expression: '0 * * * *', timezone: 'UTC' };
        for (const count of ['3', '', true, [3], { n: 3 }, 2.5]) {
          const response = await previewAs({ schedule, after: '2026-01-01T00:00:00.000Z', count });
          expect({ count, status: response.status, code: response.body.code }).toEqual({
            count,
            status: 400,
            code: 'BAD_REQUEST',
          });
          expect(response.body.errors).toEqual([{ pointer: '/count', message: expect.any(String) }]);
        }
        const counted = await previewAs({ schedule, after: '2026-01-01T00:00:00.000Z', count: 3 });
        expect(counted.body.instants).toHaveLength(3);
        const notAnObject = await previewAs([schedule]);
        expect(notAnObject.status).toBe(400);
        expect(notAnObject.body.errors).toEqual([{ pointer: '/body', message: 'the body must be a JSON object' }]);
      });

      it('GET /v1/triggers/{id}/schedule/instants previews the stored revision', async () => {
        const response = await t.request({
          method: 'GET',
          url: '/v1/triggers/nightly/schedule/instants?after=2026-10-24T00:00:00Z&count=2',
        });
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({
          engine: 'cron@1',
          tzdataDrift: false,
          instants: [
            { scheduledAt: '2026-10-24T00:30:00.000Z' },
            { scheduledAt: '2026-10-25T00:30:00.000Z', local: '2026-10-25T02:30:00+02:00', note: 'repeated_earlier' },
          ],
        });
        expect((await t.request({ method: 'GET', url: '/v1/triggers/never/schedule/instants' })).status).toBe(404);
        expect(
          (await t.request({ method: 'GET', url: '/v1/triggers/nightly/schedule/instants?count=5000' })).status,
        ).toBe(400);
      });
    });
  });

  // Its own app: a scheduler on the real database clock would also work through the other tests' 2020 schedules.
  describe(`SC-5 OP-1 a schedule revised over HTTP while no scheduler runs (${kind})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(kind, { autostart: false });
      const mission = { state: 'active', grants: GRANTS };
      expect(
        (await t.request({ method: 'PUT', url: `/v1/missions/${MISSION}`, key: newKey(), body: mission })).status,
      ).toBe(200);
    });
    afterAll(async () => {
      await t?.close();
    });

    it("the old revision's due instants show on the operator detail as a superseded range; none fires", async () => {
      const url = '/v1/triggers/revised-while-down';
      const created = Date.now();
      const body = {
        expectedRevision: 0,
        missionId: MISSION,
        type: 'schedule',
        schedule: {
          engine: 'interval@1',
          expression: 'PT1S',
          timezone: 'UTC',
          start: new Date(created - (created % 1000)).toISOString(),
          missed: { policy: 'skip', graceSeconds: 1 },
        },
      };
      expect((await t.request({ method: 'PUT', url, key: newKey(), body })).status).toBe(200);
      // instants fall due while no scheduler runs
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      const revision = await t.request({
        method: 'PUT',
        url,
        key: newKey(),
        body: { ...body, expectedRevision: 1, schedule: { ...body.schedule, expression: 'PT1H' } },
      });
      expect(revision.status).toBe(200);
      const revisedAt = Date.now();
      await t.catchUp();
      await new ScheduleMaterializer({ store: t.infra.store, sql: t.sql, signal: t.infra.signal }).runOnce();
      await t.catchUp();
      const detail = await t.request({
        method: 'GET',
        url: '/v1/operator/triggers/revised-while-down',
        token: await t.token({ scope: 'operator:read' }),
      });
      const skipped = detail.body.schedule.skipped as Array<{ from: string; to: string; count: number; cause: string }>;
      expect(skipped).toEqual([
        { from: expect.any(String), to: expect.any(String), count: expect.any(Number), cause: 'superseded' },
      ]);
      const [range] = skipped;
      expect(range!.count).toBeGreaterThanOrEqual(2);
      expect((Date.parse(range!.to) - Date.parse(range!.from)) / 1000 + 1).toBe(range!.count);
      expect(Date.parse(range!.from)).toBeGreaterThan(created - 1000);
      expect(Date.parse(range!.to)).toBeLessThanOrEqual(revisedAt);
      expect(await firedOf(t.sql, TENANT, 'revised-while-down')).toEqual([]);
    });
  });
}
