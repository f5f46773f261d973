import { ValidationError } from '../shared/errors.js';
import { deciderSpec } from '../shared/given-when-then.js';
import {
  budgetDecider,
  budgetWindowStart,
  countedExecution,
  type BudgetConsumed,
  type ConsumeBudget,
  mergeBudgetConsumed,
} from './budget.js';

const spec = deciderSpec(budgetDecider);
const WINDOW = '2026-03-01T10:00:00.000Z';
const consume = (occurrenceId: string, over: Partial<ConsumeBudget> = {}): ConsumeBudget => ({
  type: 'ConsumeBudget',
  tenant: 'acme',
  missionId: 'm-1',
  windowStart: WINDOW,
  occurrenceId,
  executionId: `e-${occurrenceId}`,
  limit: 2,
  at: '2026-03-01T10:20:00.000Z',
  ...over,
});
const consumed = (occurrenceId: string): BudgetConsumed => ({
  type: 'BudgetConsumed',
  data: {
    tenant: 'acme',
    missionId: 'm-1',
    windowStart: WINDOW,
    occurrenceId,
    executionId: `e-${occurrenceId}`,
    at: '2026-03-01T10:20:00.000Z',
  },
});

describe('Mission budget window (TR-2 maxExecutionsPerHour)', () => {
  it('windows are UTC hours, whatever offset the clock reading uses', () => {
    expect(budgetWindowStart('2026-03-01T10:59:59.999Z')).toBe(WINDOW);
    expect(budgetWindowStart('2026-03-01T12:30:00+02:00')).toBe(WINDOW);
    expect(budgetWindowStart('2026-03-01T11:00:00.000Z')).toBe('2026-03-01T11:00:00.000Z');
    expect(() => budgetWindowStart('now')).toThrow(ValidationError);
  });
  it('counts an admission', () =>
    spec
      .given()
      .when(consume('o1'))
      .then([consumed('o1')]));
  it('is idempotent per occurrence: a retry counts nothing', () =>
    spec
      .given([consumed('o1')])
      .when(consume('o1', { executionId: 'e-other' }))
      .then([]));
  it('refuses past the limit (a racing admitter re-reads and is refused)', () =>
    spec
      .given([consumed('o1'), consumed('o2')])
      .when(consume('o3'))
      .then('budget_exhausted'));
  it('remembers which execution each occurrence was counted for, so a retry reuses it', () => {
    const state = spec
      .given([consumed('o1')])
      .when(consume('o2'))
      .thenState();
    expect(state.consumed).toBe(2);
    expect(countedExecution(state, 'o2')).toBe('e-o2');
    expect(countedExecution(state, 'o3')).toBeNull();
  });
  it('units counted one after another merge into one event that folds to the same state', () => {
    const merged = mergeBudgetConsumed([consumed('o1'), consumed('o2')]);
    expect(merged).toEqual([
      {
        type: 'BudgetUnitsConsumed',
        data: {
          tenant: 'acme',
          missionId: 'm-1',
          windowStart: WINDOW,
          units: [
            { occurrenceId: 'o1', executionId: 'e-o1' },
            { occurrenceId: 'o2', executionId: 'e-o2' },
          ],
          at: '2026-03-01T10:20:00.000Z',
        },
      },
    ]);
    const state = merged.reduce(budgetDecider.evolve, budgetDecider.initialState);
    expect([state.consumed, countedExecution(state, 'o2')]).toEqual([2, 'e-o2']);
    spec.given(merged).when(consume('o3')).then('budget_exhausted');
    spec.given(merged).when(consume('o2')).then([]);
    expect(mergeBudgetConsumed([consumed('o1')])).toEqual([consumed('o1')]);
  });
  it('folding onto an older state never changes what a newer or sibling state sees (states are values)', () => {
    const { evolve, initialState } = budgetDecider;
    const one = evolve(initialState, consumed('o1'));
    const two = evolve(one, consumed('o2'));
    const branch = evolve(one, consumed('o3'));
    expect([two.consumed, branch.consumed]).toEqual([2, 2]);
    expect([countedExecution(two, 'o2'), countedExecution(two, 'o3')]).toEqual(['e-o2', null]);
    expect([countedExecution(branch, 'o3'), countedExecution(branch, 'o2')]).toEqual(['e-o3', null]);
    expect([countedExecution(one, 'o2'), countedExecution(one, 'o3'), countedExecution(one, 'o1')]).toEqual([
      null,
      null,
      'e-o1',
    ]);
    expect(countedExecution(evolve(initialState, consumed('o9')), 'o1')).toBeNull();
  });
});
