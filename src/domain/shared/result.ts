/** One problem in a submitted document; `pointer` is an RFC 6901 JSON pointer into the body. */
export interface FieldError {
  pointer: string;
  message: string;
}

/**
 * A business refusal of a command: nothing is appended. The handler maps `code` to the API's
 * problem `code` (e.g. 409 `revision_conflict` with `currentRevision`, 422 `invalid_definition`).
 */
export type Rejection<C extends string = string> = {
  rejected: true;
  code: C;
  detail?: string;
  errors?: FieldError[];
  currentRevision?: number;
};

/** What a validator answers: the normalized value, or every problem found (not just the first). */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** What a decider answers: events to append (possibly none), or a rejection. */
export type Decision<E, C extends string = string> = E[] | Rejection<C>;

export function reject<C extends string>(code: C, extra: Omit<Rejection<C>, 'rejected' | 'code'> = {}): Rejection<C> {
  return { rejected: true, code, ...extra };
}

export function isRejection(value: unknown): value is Rejection {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (value as { rejected?: unknown }).rejected === true
  );
}
