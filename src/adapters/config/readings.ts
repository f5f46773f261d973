import { ConfigError, type Env, read, type Variable } from './variable.js';

export interface Section<S> {
  readonly variables: readonly Variable<unknown>[];
  settings(readings: Readings): S;
}

/** Sections take their values from here, never from the environment. */
export class Readings {
  private constructor(private readonly values: ReadonlyMap<Variable<unknown>, unknown>) {}

  /** Reads every variable before refusing, so one failed start names every bad one. */
  static read(variables: readonly Variable<unknown>[], env: Env): Readings {
    const values = new Map<Variable<unknown>, unknown>();
    const refusals: string[] = [];
    for (const variable of variables) {
      const result = read(variable, env);
      if ('refusal' in result) refusals.push(result.refusal);
      else values.set(variable, result.value);
    }
    if (refusals.length > 0) throw new ConfigError(refusals.join('; '));
    return new Readings(values);
  }

  get<T>(variable: Variable<T>): T {
    // A bug in this module, not a bad environment: the variable would be missing from the README check.
    if (!this.values.has(variable)) throw new Error(`${variable.name} is not listed in a section's variables`);
    return this.values.get(variable) as T;
  }
}
