import { deepStrictEqual, fail, ok } from 'node:assert/strict';
import type { Decider } from './decider.js';
import { isRejection, type Rejection } from './result.js';

/**
 * Events are compared in their JSON form, as the store keeps them, so an undefined member equals a missing one.
 * node:assert rather than jest's globals, so the file also compiles in the production build.
 */
export function deciderSpec<S, E, C>(decider: Decider<S, E, C>) {
  return {
    given: (events: readonly E[] = []) => ({
      when: (command: C) => outcome(decider, events, command),
    }),
  };
}

function outcome<S, E, C>(decider: Decider<S, E, C>, events: readonly E[], command: C) {
  const state = events.reduce(decider.evolve, decider.initialState);
  const run = () => decider.decide(command, state);
  return {
    then(expected: readonly E[] | string): void {
      const result = run();
      if (typeof expected === 'string') {
        if (!isRejection(result)) fail(`expected rejection ${expected}, got events ${JSON.stringify(result)}`);
        deepStrictEqual(result.code, expected);
      } else {
        if (isRejection(result)) fail(`expected events, got rejection ${JSON.stringify(result)}`);
        deepStrictEqual(asJson(result), asJson(expected));
      }
    },
    /** `partial` names only the fields to check, e.g. `{ currentRevision: 2 }`. */
    thenRejects(code: string, partial: Partial<Rejection> = {}): void {
      const result = run();
      if (!isRejection(result)) fail(`expected rejection ${code}, got events ${JSON.stringify(result)}`);
      deepStrictEqual(
        asJson({ ...pick(result, Object.keys(partial)), code: result.code }),
        asJson({ ...partial, code }),
      );
    },
    result(): E[] | Rejection {
      return run();
    },
    /** An impossible command throws a typed error; it is never a rejection. */
    thenThrows(errorType: abstract new (...args: never[]) => Error): void {
      try {
        run();
      } catch (error) {
        ok(error instanceof errorType, `expected ${errorType.name}, got ${String(error)}`);
        return;
      }
      fail(`expected ${errorType.name} to be thrown`);
    },
    thenState(): S {
      const result = run();
      if (isRejection(result)) fail(`expected events, got rejection ${JSON.stringify(result)}`);
      return result.reduce(decider.evolve, state);
    },
  };
}

function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function pick(value: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (value as Record<string, unknown>)[key]]));
}
