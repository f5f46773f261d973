import type { FieldError } from './result.js';

/** A malformed command: its fields cannot be what the caller claims (a handler bug or a bad DTO). */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

/** A command that should never exist in this state, e.g. admitting an Occurrence never observed. */
export class IllegalStateError extends Error {
  override readonly name = 'IllegalStateError';
}
