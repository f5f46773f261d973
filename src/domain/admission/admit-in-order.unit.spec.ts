import { executionIdFor } from '../execution/execution.js';
import { NOW } from '../occurrence/occurrence.fixtures.js';
import { admitInOrder } from './admit-in-order.js';
import { type BudgetEvent } from './budget.js';
import { runningOf } from './slot-stripes.js';
import {
  AdmissionEvent,
  backlog,
  spec,
  WINDOW,
  definedTrigger,
  queuedTrigger,
  view,
  pending,
  idOf,
  admitBacklog,
  counted,
  running,
  admitted,
  outcome,
} from './admit-in-order.fixtures.js';

describe('admitting a Mission backlog in acceptance order (AD-1, AD-2, AD-5)', () => {
  describe('when the budget and slots have room', () => {
    it('admits one Occurrence: counts one budget unit, takes one slot, then decides', () =>
      spec
        .given(counted(3))
        .when(admitBacklog(['k-1']))
        .then([
          {
            type: 'BudgetConsumed',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              windowStart: WINDOW,
              occurrenceId: idOf('k-1'),
              executionId: executionIdFor(idOf('k-1')),
              at: NOW,
            },
          },
          {
            type: 'ExecutionSlotsTaken',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              executionIds: [executionIdFor(idOf('k-1'))],
              running: 1,
              stripe: 0,
              at: NOW,
            },
          },
          admitted('k-1'),
        ]));

    it('admits a backlog in the order given, its units as one event, its slots as one event per stripe taken', () => {
      const keys = ['k-1', 'k-2', 'k-3'];
      expect(
        outcome(
          spec
            .given([running(1)])
            .when(admitBacklog(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1,k-2,k-3',
        // A limit of 5 gives stripes 0–4 one slot each; stripe 0 holds the running one.
        'slots taken (1) on stripe 1, 1 there',
        'slots taken (1) on stripe 2, 1 there',
        'slots taken (1) on stripe 3, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
        `admitted k-3 as ${executionIdFor(idOf('k-3'))}`,
      ]);
    });
  });

  describe('when an earlier admission of the backlog used the last budget unit', () => {
    it('blocks the later ones with budget_exhausted, counting only what it admitted', () => {
      const keys = ['k-1', 'k-2', 'k-3'];
      expect(outcome(spec.given(counted(9)).when(admitBacklog(keys)).result(), keys)).toEqual([
        'budget counts k-1',
        'slots taken (1) on stripe 0, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: budget_exhausted',
        'blocked k-3: budget_exhausted',
      ]);
    });

    it('shows the blocked one the count the earlier admissions left', () => {
      const blocked = (
        spec
          .given(counted(9))
          .when(admitBacklog(['k-1', 'k-2']))
          .result() as AdmissionEvent[]
      ).find((e) => e.type === 'OccurrenceBlocked');
      expect(blocked?.data).toMatchObject({ evidence: { consumed: 10, limit: 10, windowStart: WINDOW } });
    });
  });

  describe('when an earlier admission of the backlog took the last slot', () => {
    it('blocks the later ones with concurrency_limit and takes no slot for them', () => {
      const keys = ['k-1', 'k-2'];
      expect(
        outcome(
          spec
            .given([running(4)])
            .when(admitBacklog(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1',
        'slots taken (1) on stripe 1, 1 there',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: concurrency_limit',
      ]);
    });
  });

  describe('when the Trigger queues over the limit (the default)', () => {
    const queued = (keys: string[]) => admitBacklog(keys, { triggers: new Map([['t-1', queuedTrigger]]) });
    it('admits past maxConcurrent, counts the budget and takes no slot: the claim takes it', () => {
      const keys = ['k-1', 'k-2'];
      expect(
        outcome(
          spec
            .given([running(5)])
            .when(queued(keys))
            .result(),
          keys,
        ),
      ).toEqual([
        'budget counts k-1,k-2',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        `admitted k-2 as ${executionIdFor(idOf('k-2'))}`,
      ]);
    });
    it('records on the request that the slot is taken at the claim', () =>
      spec
        .given([running(5)])
        .when(queued(['k-1']))
        .then([
          {
            type: 'BudgetConsumed',
            data: {
              tenant: 'acme',
              missionId: 'm-1',
              windowStart: WINDOW,
              occurrenceId: idOf('k-1'),
              executionId: executionIdFor(idOf('k-1')),
              at: NOW,
            },
          },
          admitted('k-1', 'claim'),
        ]));
    it('still blocks on the budget', () => {
      const keys = ['k-1', 'k-2'];
      expect(outcome(spec.given(counted(9)).when(queued(keys)).result(), keys)).toEqual([
        'budget counts k-1',
        `admitted k-1 as ${executionIdFor(idOf('k-1'))}`,
        'blocked k-2: budget_exhausted',
      ]);
    });
  });

  describe('when the Occurrence was already counted (a crash between the budget append and the decision)', () => {
    it('reuses the counted execution and counts nothing again', () => {
      const earlier: BudgetEvent = {
        type: 'BudgetConsumed',
        data: {
          tenant: 'acme',
          missionId: 'm-1',
          windowStart: WINDOW,
          occurrenceId: idOf('k-1'),
          executionId: 'x-counted',
          at: NOW,
        },
      };
      expect(
        outcome(
          spec
            .given([...counted(9), earlier])
            .when(admitBacklog(['k-1']))
            .result(),
          ['k-1'],
        ),
      ).toEqual(['slots taken (1) on stripe 0, 1 there', 'admitted k-1 as x-counted']);
    });
  });

  describe('when the Trigger no longer admits', () => {
    it('blocks every Occurrence and touches no counter', () => {
      const keys = ['k-1', 'k-2'];
      const disabled = { ...definedTrigger, enabled: false };
      expect(
        outcome(
          spec
            .given()
            .when(admitBacklog(keys, { triggers: new Map([['t-1', disabled]]) }))
            .result(),
          keys,
        ),
      ).toEqual(['blocked k-1: trigger_disabled', 'blocked k-2: trigger_disabled']);
    });
  });

  describe('the counters it returns', () => {
    it('are the budget and slots as the backlog left them, for the next backlog to start from', () => {
      const given = backlog.initialState;
      const { counters } = admitInOrder(['k-1', 'k-2', 'k-3'].map(pending), view(), given);
      expect(counters.budget.consumed).toBe(3);
      expect(runningOf(counters.concurrency)).toBe(3);
      const next = admitInOrder(['k-1', 'k-4'].map(pending), view(), counters);
      expect(next.budget).toHaveLength(1);
      expect(next.counters.budget.consumed).toBe(4);
      expect(next.steps[0]!.executionId).toBe(executionIdFor(idOf('k-1')));
    });
  });
});
