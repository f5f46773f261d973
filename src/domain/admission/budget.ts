import type { Decider, DomainEvent } from '../shared/decider.js';
import { ValidationError } from '../shared/errors.js';
import { reject, type Rejection } from '../shared/result.js';
import { parseRfc3339, toUtcIso } from '../schedule/index.js';

const HOUR_MS = 3_600_000;

/** The start of the UTC hour holding `nowIso` (the budget window of `maxExecutionsPerHour`). */
export function budgetWindowStart(nowIso: string): string {
  const ms = parseRfc3339(nowIso);
  if (ms === null) throw new ValidationError(`not an RFC 3339 instant: ${nowIso}`);
  return toUtcIso(Math.floor(ms / HOUR_MS) * HOUR_MS);
}

/**
 * Shared by every state folded from the same history, each seeing its first `consumed`: folding onto the
 * newest appends in place (O(1)); onto an older one copies its prefix, so no state observes a change.
 */
interface CountedLog {
  executions: Map<string, { executionId: string; index: number }>;
  length: number;
}

export interface BudgetState {
  consumed: number;
  readonly counted: CountedLog;
}

/** Count one admission against the Mission's budget window before the admission is appended. */
export interface ConsumeBudget {
  type: 'ConsumeBudget';
  tenant: string;
  missionId: string;
  windowStart: string;
  occurrenceId: string;
  executionId: string;
  limit: number;
  at: string;
}

/** One admission counted in a Mission's window; serializes admissions per Mission window. */
export type BudgetConsumed = DomainEvent<
  'BudgetConsumed',
  { tenant: string; missionId: string; windowStart: string; occurrenceId: string; executionId: string; at: string }
>;

/** Several admissions of one batch counted at once, in acceptance order (one row instead of one each). */
export type BudgetUnitsConsumed = DomainEvent<
  'BudgetUnitsConsumed',
  {
    tenant: string;
    missionId: string;
    windowStart: string;
    units: Array<{ occurrenceId: string; executionId: string }>;
    at: string;
  }
>;

export type BudgetEvent = BudgetConsumed | BudgetUnitsConsumed;

export const initialBudgetState: BudgetState = { consumed: 0, counted: { executions: new Map(), length: 0 } };

function extend(state: BudgetState): CountedLog {
  if (state.consumed === 0) return { executions: new Map(), length: 0 };
  if (state.counted.length === state.consumed) return state.counted;
  const executions = new Map([...state.counted.executions].filter(([, entry]) => entry.index < state.consumed));
  return { executions, length: state.consumed };
}

export function evolveBudget(state: BudgetState, event: BudgetEvent): BudgetState {
  switch (event.type) {
    case 'BudgetConsumed':
      return countUnits(state, [event.data]);
    case 'BudgetUnitsConsumed':
      return countUnits(state, event.data.units);
    default: {
      const _: never = event;
      return state;
    }
  }
}

function countUnits(
  state: BudgetState,
  units: ReadonlyArray<{ occurrenceId: string; executionId: string }>,
): BudgetState {
  const counted = extend(state);
  let consumed = state.consumed;
  for (const { occurrenceId, executionId } of units) {
    if (!counted.executions.has(occurrenceId)) counted.executions.set(occurrenceId, { executionId, index: consumed });
    consumed += 1;
  }
  counted.length = consumed;
  return { consumed, counted };
}

export function mergeBudgetConsumed(events: readonly BudgetConsumed[]): BudgetEvent[] {
  if (events.length <= 1) return [...events];
  const { tenant, missionId, windowStart, at } = events[events.length - 1]!.data;
  return [
    {
      type: 'BudgetUnitsConsumed',
      data: {
        tenant,
        missionId,
        windowStart,
        units: events.map((e) => ({ occurrenceId: e.data.occurrenceId, executionId: e.data.executionId })),
        at,
      },
    },
  ];
}

export function countedExecution(state: BudgetState, occurrenceId: string): string | null {
  const entry = state.counted.executions.get(occurrenceId);
  return entry !== undefined && entry.index < state.consumed ? entry.executionId : null;
}

/**
 * An occurrence already counted returns [] (a retry after a crash between the budget append and the
 * decision append does not count twice). The limit is re-checked here because two admitters may
 * have read the same count; the loser's append conflicts, it re-reads and is refused.
 */
export function consumeBudget(
  command: ConsumeBudget,
  state: BudgetState,
): BudgetConsumed[] | Rejection<'budget_exhausted'> {
  if (countedExecution(state, command.occurrenceId) !== null) return [];
  if (state.consumed >= command.limit)
    return reject('budget_exhausted', {
      detail: `${state.consumed} of ${command.limit} used in window ${command.windowStart}`,
    });
  const { tenant, missionId, windowStart, occurrenceId, executionId, at } = command;
  return [{ type: 'BudgetConsumed', data: { tenant, missionId, windowStart, occurrenceId, executionId, at } }];
}

export const budgetDecider: Decider<BudgetState, BudgetEvent, ConsumeBudget> = {
  initialState: initialBudgetState,
  evolve: evolveBudget,
  decide: consumeBudget,
};
