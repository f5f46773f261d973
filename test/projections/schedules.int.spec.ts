import { ScheduleMaterializer } from '../../src/adapters/scheduler/schedule-materializer.js';
import { handleCommand } from '../../src/commands/shared/write-kernel.js';
import { missionDecider } from '../../src/domain/mission/mission.js';
import { dismissHeld } from '../../src/domain/schedule/materialization.js';
import { missionStream } from '../../src/domain/shared/ids.js';
import { schedulesProjection } from '../../src/projections/scheduler/schedules.projection.js';
import { ManualClock } from '../support/manual-clock.js';
import { at, GRANTS, minute, reviseSchedule } from '../schedules/schedule-fixtures.js';
import { type DbKind, openHarness, type ProjectionHarness, replayAll } from './harness.js';

const TENANT = 'acme';
const schedule = (missed: Record<string, unknown>) => ({
  engine: 'cron@1',
  expression: '* * * * *',
  timezone: 'UTC',
  missed,
});

describe.each<DbKind>(['postgres', 'pglite'])('OP-3 schedules read model (%s)', (kind) => {
  let h: ProjectionHarness;
  const clock = new ManualClock(at('00:00:00'));

  beforeAll(async () => {
    h = await openHarness(kind, [schedulesProjection]);
    const mission = {
      type: 'ReviseMission' as const,
      tenant: TENANT,
      missionId: 'm-1',
      definition: { state: 'active', grants: GRANTS },
      reason: '',
      actor: 'svc-test',
      at: at('00:00:00'),
    };
    await handleCommand(h.store, missionStream(TENANT, 'm-1'), missionDecider, mission, { tenant: TENANT });
    const revise = (
      triggerId: string,
      activatedAt: string,
      missed: Record<string, unknown>,
      extra: Record<string, unknown> = {},
    ) =>
      reviseSchedule(h.store, {
        tenant: TENANT,
        triggerId,
        missionId: 'm-1',
        activatedAt,
        schedule: schedule(missed),
        ...extra,
      });
    await revise('held', at('00:00:30'), { policy: 'catch_up', bound: 2, overflow: 'hold' });
    await revise('skip', at('00:00:30'), { policy: 'skip' });
    await revise('off', at('00:00:30'), { policy: 'skip' });
    await h.catchUp();
    // the materializer writes the index through in its own transactions; the projection folds the same events later
    const materializer = new ScheduleMaterializer({ store: h.store, sql: h.sql, clock });
    await materializer.runOnce();
    clock.set(minute(1));
    await materializer.runOnce();
    clock.set(at('00:10:30'));
    await materializer.runOnce();
    await revise('off', at('00:10:40'), { policy: 'skip' }, { enabled: false });
    await revise('skip', at('00:10:50'), { policy: 'latest' });
    await h.catchUp();
    await materializer.decideOne(TENANT, 'held', at('00:11:00'), (trigger, state) =>
      dismissHeld(
        {
          type: 'DismissHeldInstants',
          trigger,
          now: at('00:11:00'),
          actor: 'ops',
          reason: 'test',
          tzdataVersion: null,
        },
        state,
      ),
    );
    clock.set(at('00:12:05'));
    await materializer.runOnce();
    // routine fires: recorded by their Occurrences only, folded into the index from them
    for (const m of [13, 14]) {
      clock.set(minute(m));
      await materializer.runOnce();
    }
    await h.catchUp();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('indexes each schedule with its next due time, boundary and ranges', async () => {
    const { rows } = await h.sql.query<{
      trigger_id: string;
      due: string | null;
      boundary: string | null;
      skipped: unknown[];
      epoch: number;
      routine: number;
    }>(
      `SELECT trigger_id, to_char(due_at AT TIME ZONE 'UTC', 'HH24:MI:SS') AS due, state->>'boundary' AS boundary, skipped, epoch, routine_instants AS routine
         FROM rm_schedules ORDER BY trigger_id`,
    );
    expect(rows).toEqual([
      {
        trigger_id: 'held',
        due: '00:15:00',
        boundary: minute(14),
        epoch: 1,
        routine: 2,
        skipped: [{ from: minute(4), to: minute(9), count: 6, cause: 'dismissed' }],
      },
      {
        trigger_id: 'off',
        due: null,
        boundary: minute(10),
        epoch: 1,
        routine: 0,
        skipped: [{ from: minute(2), to: minute(9), count: 8, cause: 'skip' }],
      },
      // the policy change is a new epoch (revision 2) activated at 00:10:50: 00:11, missed by then, fires as the latest
      {
        trigger_id: 'skip',
        due: '00:15:00',
        boundary: minute(14),
        epoch: 2,
        routine: 2,
        skipped: [{ from: minute(2), to: minute(9), count: 8, cause: 'skip' }],
      },
    ]);
  });

  it('a rebuild from position 0 yields the rows the write-through left, and a replay changes nothing', async () => {
    const live = await h.dump(schedulesProjection);
    await replayAll(h, schedulesProjection);
    expect(await h.dump(schedulesProjection)).toEqual(live);
    await h.runners[0]!.rebuild();
    expect(await h.dump(schedulesProjection)).toEqual(live);
  });
});
