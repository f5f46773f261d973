import type { ExpectedRevision } from '../ports/event-store.js';
import { type FieldError, type Rejection, reject } from './result.js';

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

/** Optimistic concurrency failure: the stream was not at the revision the writer expected (decision 1). */
export class WrongExpectedRevision extends Error {
  override readonly name = 'WrongExpectedRevision';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** -1 when the stream does not exist. */
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${actual}`);
  }
}

/** The store cannot be reached; nothing was written (the HTTP layer answers 503). */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`event store unavailable: ${reason}`, options);
  }
}

/** A command the domain refused, with a stable code (mapped to problem+json by the HTTP layer). */
export class CommandRejected extends Error {
  override readonly name = 'CommandRejected';
  constructor(readonly rejection: Rejection) {
    super(rejection.detail ?? rejection.code);
  }
}

/** The command names something that does not exist for its tenant (404 `not_found` over HTTP). */
export const notFound = (detail = 'No such resource.'): CommandRejected =>
  new CommandRejected(reject('not_found', { detail }));

/** A field of the command is out of bounds (400 `BAD_REQUEST` over HTTP, with the fields named). */
export const badRequest = (detail: string, errors: FieldError[]): CommandRejected =>
  new CommandRejected(reject('BAD_REQUEST', { detail, errors }));
