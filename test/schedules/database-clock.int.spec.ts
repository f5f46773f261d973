import { ScheduleMaterializer } from '../../src/adapters/scheduler/schedule-materializer.js';
import { handleCommand } from '../../src/commands/shared/write-kernel.js';
import { missionDecider } from '../../src/domain/mission/mission.js';
import { missionStream } from '../../src/domain/shared/ids.js';
import { schedulesProjection } from '../../src/projections/scheduler/schedules.projection.js';
import { type DbKind, openHarness, type ProjectionHarness } from '../projections/harness.js';
import { ManualClock } from '../support/manual-clock.js';
import { firedOf, GRANTS, reviseSchedule } from './schedule-fixtures.js';

const TENANT = 'acme';
const iso = (ms: number) => new Date(ms).toISOString();

describe.each<DbKind>(['postgres', 'pglite'])('SC-4 SC-6 the database clock bounds every claim (%s)', (kind) => {
  let h: ProjectionHarness;

  beforeAll(async () => {
    h = await openHarness(kind, [schedulesProjection]);
    const mission = {
      type: 'ReviseMission' as const,
      tenant: TENANT,
      missionId: 'm-1',
      definition: { state: 'active', grants: GRANTS },
      reason: '',
      actor: 'svc-test',
      at: iso(Date.now()),
    };
    await handleCommand(h.store, missionStream(TENANT, 'm-1'), missionDecider, mission, { tenant: TENANT });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a pass whose clock runs ahead of the database fires nothing before the database reaches the instant, staged or not', async () => {
    const dbNow = (await h.store.now()).getTime();
    const instant = iso(dbNow + 10 * 60_000);
    const schedule = {
      engine: 'interval@1',
      expression: 'PT1H',
      timezone: 'UTC',
      start: instant,
      missed: { policy: 'skip' },
    };
    await reviseSchedule(h.store, {
      tenant: TENANT,
      triggerId: 'ahead',
      missionId: 'm-1',
      activatedAt: iso(dbNow),
      schedule,
    });
    await h.catchUp();
    const clock = new ManualClock(iso(dbNow));
    const materializer = new ScheduleMaterializer({ store: h.store, sql: h.sql, clock });
    // the activation is recorded at once; its first instant is ten minutes away on the database clock
    expect(await materializer.runOnce()).toMatchObject({ triggers: 1, fired: 0 });

    clock.set(iso(Date.parse(instant) - 1000));
    expect(await materializer.stage()).toEqual({ instant, staged: 1 });
    clock.set(iso(Date.parse(instant) + 1000));
    expect(await materializer.runOnce()).toMatchObject({ triggers: 0, fired: 0, staged: 0 });
    expect(await new ScheduleMaterializer({ store: h.store, sql: h.sql, clock }).runOnce()).toMatchObject({
      triggers: 0,
      fired: 0,
    });
    expect(await firedOf(h.sql, TENANT, 'ahead')).toEqual([]);
  });
});
