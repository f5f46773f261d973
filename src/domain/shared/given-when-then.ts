import { deepStrictEqual, fail, ok } from 'node:assert/strict';
import type { Decider } from './decider.js';
import { isRejection, type Rejection } from './result.js';

/**
 * Test helper for deciders (STYLE §6): `spec.given(events).when(command).then(expected)`.
 * `expected` is the list of events, or a rejection code. Events are compared in their JSON form,
 * which is what the store keeps, so an undefined member and a missing one are the same.
 * Uses node:assert rather than jest's globals so the file also compiles in the production build.
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
    /** Asserts the emitted events, or the rejection code when given a string. */
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
    /** Asserts a rejection whose fields include `partial` (e.g. `{ currentRevision: 2 }`). */
    thenRejects(code: string, partial: Partial<Rejection> = {}): void {
      const result = run();
      if (!isRejection(result)) fail(`expected rejection ${code}, got events ${JSON.stringify(result)}`);
      deepStrictEqual(
        asJson({ ...pick(result, Object.keys(partial)), code: result.code }),
        asJson({ ...partial, code }),
      );
    },
    /** The raw decision, for assertions the helpers above do not cover. */
    result(): E[] | Rejection {
      return run();
    },
    /** Asserts that the command is impossible in this state (a typed error, never a rejection). */
    thenThrows(errorType: abstract new (...args: never[]) => Error): void {
      try {
        run();
      } catch (error) {
        ok(error instanceof errorType, `expected ${errorType.name}, got ${String(error)}`);
        return;
      }
      fail(`expected ${errorType.name} to be thrown`);
    },
    /** The state after the given events and the emitted ones, for assertions on evolve. */
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
