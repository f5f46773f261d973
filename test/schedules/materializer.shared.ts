import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { ScheduleMaterializer } from '../../src/adapters/scheduler/schedule-materializer.js';
import { ScheduleMaterializerService } from '../../src/adapters/scheduler/schedule-materializer.service.js';
import { chainHash, eventContent } from '../../src/domain/shared/event-hash.js';
import { occurrenceStream, scheduleStream } from '../../src/domain/shared/ids.js';
import { SubscriptionRegistry } from '../../src/adapters/runner/subscription-registry.js';
import { getTriggerHealth } from '../../src/projections/trigger-health/trigger-health.queries.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { ManualClock } from '../support/manual-clock.js';
import { at, firedOf, GRANTS, minute, minutes, reviseSchedule } from './schedule-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-sched';
const minutely = (missed: Record<string, unknown> = {}) => ({
  engine: 'cron@1',
  expression: '* * * * *',
  timezone: 'UTC',
  missed: { policy: 'skip', ...missed },
});

export function materializerSuite(kind: StoreKind): void {
  describe(`SC-3..SC-8 schedule materializer (${kind})`, () => {
    let t: TestApp;
    let n = 0;
    const clock = new ManualClock(at('00:00:00'));
    const materializer = (options: Partial<ConstructorParameters<typeof ScheduleMaterializer>[0]> = {}) =>
      new ScheduleMaterializer({ store: t.infra.store, sql: t.sql, signal: t.infra.signal, clock, ...options });
    const tick = (iso: string, m = materializer()) => {
      clock.set(iso);
      return m.runOnce();
    };
    const scheduleEvents = async (triggerId: string) =>
      (await t.infra.store.readStream(scheduleStream(TENANT, triggerId))).map((e) => ({
        type: e.type,
        data: e.data as Record<string, unknown>,
      }));

    /** A minutely schedule activated at 00:00:30 that fired 00:01 on time. */
    async function activated(schedule = minutely(), fireFirst = true): Promise<string> {
      const triggerId = `s-${++n}`;
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId,
        missionId: MISSION,
        activatedAt: at('00:00:30'),
        schedule,
      });
      await t.catchUp();
      if (fireFirst) expect((await tick(minute(1))).fired).toBeGreaterThanOrEqual(1);
      return triggerId;
    }

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

    it('runs as a background task of the app, held back like every subscription when autostart is off', () => {
      expect(t.app.get(SubscriptionRegistry).registered()).toContain('scheduler:materializer');
      expect(t.app.get(SubscriptionRegistry).names()).not.toContain('scheduler:materializer');
      expect(t.app.get(ScheduleMaterializerService).materializer).toBeInstanceOf(ScheduleMaterializer);
    });

    it('SC-4 SC-6 fires an instant only once the clock reaches it; scheduled_at is kept and fired_at recorded at admission', async () => {
      const triggerId = await activated(minutely(), false);
      expect((await tick(at('00:00:59'))).fired).toBe(0);
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([]);
      expect((await tick(minute(1))).fired).toBe(1);
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1)]);
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      const [observed, decision] = await t.infra.store.readStream(
        occurrenceStream(await occurrenceIdOf(triggerId, minute(1))),
      );
      expect(observed!.data).toMatchObject({
        kind: 'schedule',
        scheduledAt: minute(1),
        auth: { state: 'internal' },
        observedAt: minute(1),
      });
      expect(decision).toMatchObject({ type: 'OccurrenceAdmitted', data: { request: { scheduledAt: minute(1) } } });
      const firedAt = (decision!.data as { firedAt: string }).firedAt;
      expect(Date.parse(firedAt)).toBeGreaterThanOrEqual(Date.parse(minute(1)));
    });

    async function occurrenceIdOf(triggerId: string, instant: string): Promise<string> {
      const { rows } = await t.sql.query<{ id: string }>(
        `SELECT data->>'occurrenceId' AS id FROM events WHERE type = 'OccurrenceObserved' AND data->>'triggerId' = $1 AND data->>'scheduledAt' = $2`,
        [triggerId, instant],
      );
      return rows[0]!.id;
    }

    it('SC-8 a restart exactly at a fire boundary neither duplicates nor skips', async () => {
      const triggerId = await activated();
      // each tick is a fresh materializer: a process restarted at exactly that time
      await tick(minute(1), materializer());
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1)]);
      await tick(minute(2), materializer());
      await tick(minute(2), materializer());
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2)]);
    });

    describe('SC-5 SC-8 after a simulated outage of 50 instants (00:02..00:51) with bound 5, resumed at 00:52:30', () => {
      const resumed = at('00:52:30');
      it.each([
        [
          'skip',
          { policy: 'skip' },
          [minute(1), minute(52)],
          [{ type: 'MissedOccurrencesSkipped', from: minute(2), to: minute(51), count: 50, cause: 'skip' }],
        ],
        [
          'latest',
          { policy: 'latest' },
          [minute(1), minute(51), minute(52)],
          [{ type: 'MissedOccurrencesSkipped', from: minute(2), to: minute(50), count: 49, cause: 'latest' }],
        ],
        [
          'catch_up hold',
          { policy: 'catch_up', bound: 5, overflow: 'hold' },
          [...minutes(1, 6), minute(52)],
          [{ type: 'CatchUpHeld', from: minute(7), to: minute(51), count: 45 }],
        ],
        [
          'catch_up skip_rest',
          { policy: 'catch_up', bound: 5, overflow: 'skip_rest' },
          [...minutes(1, 6), minute(52)],
          [{ type: 'MissedOccurrencesSkipped', from: minute(7), to: minute(51), count: 45, cause: 'overflow' }],
        ],
      ])(
        '%s: records the ranges and counts and fires no more than the policy allows',
        async (_name, missed, fired, ranges) => {
          const triggerId = await activated(minutely(missed));
          await tick(resumed);
          expect(await firedOf(t.sql, TENANT, triggerId)).toEqual(fired);
          const recorded = (await scheduleEvents(triggerId)).filter((e) => e.type !== 'ScheduleMaterialized');
          expect(
            recorded.map(({ type, data: { from, to, count, cause } }) => ({
              type,
              from,
              to,
              count,
              ...(cause ? { cause } : {}),
            })),
          ).toEqual(ranges);
          // resuming again at the same time is a no-op: nothing fires twice, no burst follows
          expect(await tick(resumed)).toMatchObject({ fired: 0, skipped: 0, held: 0 });
          expect(await firedOf(t.sql, TENANT, triggerId)).toEqual(fired);
        },
      );
    });

    it('SC-3 SC-8 routine fires append no schedule event, and an index behind its streams neither repeats nor skips them', async () => {
      const triggerId = await activated(minutely({ policy: 'latest' }));
      const side = async () =>
        (
          await t.sql.query(
            `SELECT state, state_position, routine_instants, schedule_revision FROM rm_schedules WHERE trigger_id = $1`,
            [triggerId],
          )
        ).rows[0];
      const recorded = await side();
      await tick(minute(2));
      await tick(minute(3));
      expect((await scheduleEvents(triggerId)).map((e) => e.type)).toEqual(['ScheduleMaterialized']);
      expect(await side()).toMatchObject({ routine_instants: 2, state: { boundary: minute(3), nextDueAt: minute(4) } });
      // the index loses the two routine fires (as while a rebuild replays the log), then resumes late
      await t.sql.query(
        `UPDATE rm_schedules SET state = $2::jsonb, state_next_due_at = $3::timestamptz, state_position = $4, routine_instants = 0 WHERE trigger_id = $1`,
        [triggerId, JSON.stringify(recorded!.state), minute(2), recorded!.state_position],
      );
      await tick(at('00:05:30'));
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2), minute(3), minute(4), minute(5)]);
      const ranges = (await scheduleEvents(triggerId)).filter((e) => e.type !== 'ScheduleMaterialized');
      expect(ranges).toEqual([]);
      expect(await side()).toMatchObject({ routine_instants: 0, state: { boundary: minute(5) } });
    });

    it('SC-3 racing schedulers on one store converge on one Occurrence per instant', async () => {
      const triggerIds: string[] = [];
      for (let i = 0; i < 3; i++) triggerIds.push(await activated(minutely({ graceSeconds: 3600 }), false));
      clock.set(minute(20));
      const racers = [1, 2, 3].map(() => materializer({ claim: 'none', batchSize: 2 }));
      const stats = await Promise.all(racers.map((m) => m.runOnce()));
      for (const id of triggerIds) expect(await firedOf(t.sql, TENANT, id)).toEqual(minutes(1, 20));
      // every committed fire is one Occurrence: the racers' counts add up to no more than what exists
      const all = await t.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved'`,
      );
      expect(stats.reduce((sum, s) => sum + s.fired, 0)).toBeLessThanOrEqual(all.rows[0]!.n);
    });

    describe('pre-staged routine fires', () => {
      const side = async (triggerId: string) =>
        (
          await t.sql.query(
            `SELECT trigger_revision, state, state_position::int, routine_instants, schedule_revision FROM rm_schedules WHERE trigger_id = $1`,
            [triggerId],
          )
        ).rows[0];
      const observedAt = (iso: string) => `2020-01-01T${iso}Z`;

      it("SC-4 SC-6 commit only when a pass reaches the instant, with that pass's now, recorded as an unstaged fire would be", async () => {
        const triggerId = await activated();
        const m = materializer();
        clock.set(at('00:01:50'));
        expect(await m.stage()).toMatchObject({ instant: minute(2) });
        expect((await m.stage()).staged).toBe(0);
        // staged is not due: a pass before the instant claims nothing
        expect((await tick(observedAt('00:01:59.999'), m)).staged).toBe(0);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1)]);

        const stats = await tick(observedAt('00:02:00.250'), m);
        expect(stats.staged).toBeGreaterThanOrEqual(1);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2)]);
        const [observed] = await t.infra.store.readStream(
          occurrenceStream(await occurrenceIdOf(triggerId, minute(2))),
          { raw: true },
        );
        expect(observed!.data).toMatchObject({
          kind: 'schedule',
          scheduledAt: minute(2),
          observedAt: observedAt('00:02:00.250'),
        });
        expect(observed!.metadata).toMatchObject({
          correlationId: `schedule:${triggerId}:${observedAt('00:02:00.250')}`,
          causationId: `schedule:${triggerId}:${minute(2)}`,
        });
        // the hash the database computed covers exactly the content as stored (AU-2)
        expect(chainHash(observed!.prevHash, observed!.recordedAt, eventContent(observed!))).toBe(observed!.hash);
        // a routine fire: no schedule event, and the index row moved on as the writer moves it
        expect((await scheduleEvents(triggerId)).map((e) => e.type)).toEqual(['ScheduleMaterialized']);
        expect(await side(triggerId)).toMatchObject({
          routine_instants: 1,
          state_position: observed!.position,
          state: { boundary: minute(2), nextDueAt: minute(3) },
        });
        await tick(minute(3));
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual(minutes(1, 3));
      });

      it('SC-5 a staged fire is dropped where deciding afresh differs: a pass past the grace, a row revised since', async () => {
        const late = await activated(minutely({ graceSeconds: 0 }));
        const revised = await activated();
        const m = materializer();
        clock.set(at('00:01:50'));
        expect((await m.stage()).staged).toBeGreaterThanOrEqual(2);
        // a revision that leaves the schedule alone: same epoch, a new Trigger revision on the Occurrence
        await reviseSchedule(t.infra.store, {
          tenant: TENANT,
          triggerId: revised,
          missionId: MISSION,
          activatedAt: at('00:01:55'),
          schedule: minutely(),
          extra: { overlap: 'skip' },
        });
        await t.catchUp();
        const revision = (await side(revised))!.trigger_revision as number;

        await tick(observedAt('00:02:01.000'), m);
        // grace 0: one second late is missed (skip), as an unstaged pass at that time decides
        expect(await firedOf(t.sql, TENANT, late)).toEqual([minute(1)]);
        expect(
          (await scheduleEvents(late)).filter((e) => e.type === 'MissedOccurrencesSkipped').map((e) => e.data),
        ).toMatchObject([{ from: minute(2), to: minute(2), count: 1, cause: 'skip' }]);
        expect(await firedOf(t.sql, TENANT, revised)).toEqual([minute(1), minute(2)]);
        const [observed] = await t.infra.store.readStream(occurrenceStream(await occurrenceIdOf(revised, minute(2))));
        expect(observed!.data).toMatchObject({ triggerRevision: revision, observedAt: observedAt('00:02:01.000') });
      });

      it('SC-5 graceSeconds counts whole seconds: with grace 0 and skip, a pass a fraction of a second after the instant fires it; a second late is missed', async () => {
        const precise = (hhmmss: string) => `2020-01-01T${hhmmss}Z`;
        const triggerId = await activated(minutely({ graceSeconds: 0 }), false);
        // unstaged: the pass that reaches the instant runs a few hundred ms after it, as a real process does
        await tick(precise('00:01:00.250'));
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1)]);
        // staged ahead, committed just after the instant
        const m = materializer();
        clock.set(at('00:01:50'));
        expect((await m.stage()).staged).toBeGreaterThanOrEqual(1);
        await tick(precise('00:02:00.999'), m);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2)]);
        // one whole second late is more than 0 s: missed, and skip records it
        await tick(precise('00:03:01.000'));
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2)]);
        expect(
          (await scheduleEvents(triggerId)).filter((e) => e.type === 'MissedOccurrencesSkipped').map((e) => e.data),
        ).toMatchObject([{ from: minute(3), to: minute(3), count: 1, cause: 'skip' }]);
      });

      it('SC-3 racing schedulers that all staged the same instant still leave one Occurrence per instant', async () => {
        const triggerIds: string[] = [];
        for (let i = 0; i < 3; i++) triggerIds.push(await activated());
        const racers = [1, 2, 3].map(() => materializer({ claim: 'none', batchSize: 1 }));
        clock.set(at('00:01:50'));
        for (const m of racers) expect((await m.stage()).staged).toBeGreaterThanOrEqual(3);
        clock.set(minute(2));
        const stats = await Promise.all(racers.map((m) => m.runOnce()));
        for (const id of triggerIds) expect(await firedOf(t.sql, TENANT, id)).toEqual([minute(1), minute(2)]);
        const all = await t.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved'`,
        );
        expect(stats.reduce((sum, s) => sum + s.fired, 0)).toBeLessThanOrEqual(all.rows[0]!.n);
        expect(stats.reduce((sum, s) => sum + s.staged, 0)).toBeGreaterThanOrEqual(3);
      });
    });

    it('SC-7 a tz data change after materialization shows drift and never moves or duplicates an instant', async () => {
      const triggerId = await activated();
      const running = process.versions.tz ?? null;
      expect((await getTriggerHealth(t.sql, TENANT, triggerId, running))?.tzdataDrift).toBe(false);
      // the process now runs other tz data: the operator row says so
      expect(await getTriggerHealth(t.sql, TENANT, triggerId, '2099z')).toMatchObject({
        tzdataDrift: true,
        schedule: { tzdataVersion: running },
      });
      const upgraded = materializer({ tzdataVersion: '2099z' });
      expect((await tick(minute(1), upgraded)).fired).toBe(0);
      expect((await tick(minute(2), upgraded)).fired).toBe(1);
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2)]);
      const closing = (await scheduleEvents(triggerId))
        .filter((e) => e.type === 'ScheduleMaterialized')
        .map((e) => e.data.tzdataVersion);
      expect(closing).toEqual([running, '2099z']);
    });

    describe('SC-5 an activation that ends while no scheduler runs loses no due instant silently', () => {
      const ranges = async (triggerId: string) =>
        (await scheduleEvents(triggerId))
          .filter((e) => e.type === 'MissedOccurrencesSkipped')
          .map(({ data: { epoch, from, to, count, cause } }) => ({ epoch, from, to, count, cause }));

      it("a schedule revised during an outage records the old revision's due instants as a superseded range; the new one starts at its activation", async () => {
        const triggerId = await activated(minutely({ graceSeconds: 5 }));
        // the scheduler is down from 00:01 on; the schedule is revised at 00:10:30 (new epoch)
        await reviseSchedule(t.infra.store, {
          tenant: TENANT,
          triggerId,
          missionId: MISSION,
          activatedAt: at('00:10:30'),
          schedule: { ...minutely({ graceSeconds: 5 }), expression: '*/5 * * * *' },
        });
        await t.catchUp();
        const epoch = (
          await t.sql.query<{ epoch: number }>('SELECT epoch FROM rm_schedules WHERE trigger_id = $1', [triggerId])
        ).rows[0]!.epoch;
        await tick(at('00:12:30'));
        expect(await ranges(triggerId)).toEqual([
          { epoch: 1, from: minute(2), to: minute(10), count: 9, cause: 'superseded' },
        ]);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1)]);
        // the operator detail names the range
        await t.catchUp();
        expect((await getTriggerHealth(t.sql, TENANT, triggerId))?.schedule?.skipped).toEqual([
          { from: minute(2), to: minute(10), count: 9, cause: 'superseded' },
        ]);
        // the new revision's instants before its activation are not missed; its first one fires on time
        await tick(minute(15));
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(15)]);
        expect(await ranges(triggerId)).toHaveLength(1);
        expect((await scheduleEvents(triggerId)).at(-1)?.data).toMatchObject({ epoch, boundary: at('00:10:30') });
      });

      it('an ended activation with more undecided instants than one decision scans is recorded whole within one pass', async () => {
        const secondly = {
          engine: 'interval@1',
          expression: 'PT1S',
          timezone: 'UTC',
          start: at('00:00:00'),
          missed: { policy: 'skip' },
        };
        const triggerId = await activated(secondly, false);
        await reviseSchedule(t.infra.store, {
          tenant: TENANT,
          triggerId,
          missionId: MISSION,
          activatedAt: at('03:30:30'),
          schedule: { ...secondly, expression: 'PT1H' },
        });
        await t.catchUp();
        await tick(at('03:31:00'));
        expect(await ranges(triggerId)).toEqual([
          { epoch: 1, from: at('00:00:31'), to: at('02:47:10'), count: 10_000, cause: 'superseded' },
          { epoch: 1, from: at('02:47:11'), to: at('03:30:30'), count: 2_600, cause: 'superseded' },
        ]);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([]);
        expect((await scheduleEvents(triggerId)).at(-1)?.data).toMatchObject({ epoch: 2, boundary: at('03:30:30') });
      });

      it('revisions stacked during one outage record every ended activation, each with its own schedule and epoch', async () => {
        const triggerId = await activated(minutely({ graceSeconds: 5 }));
        const revise = (hhmmss: string, schedule: Record<string, unknown>, enabled = true) =>
          reviseSchedule(t.infra.store, {
            tenant: TENANT,
            triggerId,
            missionId: MISSION,
            activatedAt: at(hhmmss),
            schedule,
            enabled,
          });
        await revise('00:04:30', { ...minutely(), expression: '*/2 * * * *' });
        await revise('00:09:30', { ...minutely(), expression: '*/2 * * * *' }, false);
        await revise('00:20:30', { ...minutely(), expression: '*/2 * * * *' });
        await revise('00:25:30', minutely());
        await t.catchUp();
        await tick(at('00:26:10'));
        expect(await ranges(triggerId)).toEqual([
          { epoch: 1, from: minute(2), to: minute(4), count: 3, cause: 'superseded' },
          // instants while disabled (00:10..00:20) were never due: not recorded
          { epoch: 2, from: minute(6), to: minute(8), count: 2, cause: 'disabled' },
          { epoch: 2, from: minute(22), to: minute(24), count: 2, cause: 'superseded' },
        ]);
        expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(26)]);
      });
    });

    it('SC-3 an instant keeps its identity across revisions that leave the schedule alone; a schedule change starts a new epoch', async () => {
      const triggerId = await activated();
      const epochOf = async (instant: string) => {
        const { rows } = await t.sql.query<{ epoch: number }>(
          `SELECT (data->'dedupeIdentity'->>'epoch')::int AS epoch FROM events WHERE type = 'OccurrenceObserved' AND data->>'triggerId' = $1 AND data->>'scheduledAt' = $2`,
          [triggerId, instant],
        );
        return rows.map((r) => r.epoch);
      };
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId,
        missionId: MISSION,
        activatedAt: at('00:01:30'),
        schedule: minutely(),
        extra: { overlap: 'skip' },
      });
      await t.catchUp();
      await tick(minute(2));
      expect(await epochOf(minute(2))).toEqual([1]);
      await reviseSchedule(t.infra.store, {
        tenant: TENANT,
        triggerId,
        missionId: MISSION,
        activatedAt: at('00:02:30'),
        schedule: { ...minutely(), expression: '*/2 * * * *' },
        extra: { overlap: 'skip' },
      });
      await t.catchUp();
      await tick(minute(4));
      expect(await epochOf(minute(4))).toEqual([3]);
      expect(await firedOf(t.sql, TENANT, triggerId)).toEqual([minute(1), minute(2), minute(4)]);
      // minute(2) was a routine fire (recorded by its Occurrence alone): the revision took it into account
      expect((await scheduleEvents(triggerId)).filter((e) => e.type === 'MissedOccurrencesSkipped')).toEqual([]);
    });
  });
}
