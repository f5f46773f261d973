/** One problem in a submitted document; `pointer` is an RFC 6901 JSON pointer into the body. */
export interface FieldError {
  pointer: string;
  message: string;
}

/** A business refusal: nothing is appended, and `code` becomes the problem's stable `code`. */
export type Rejection<C extends string = string> = {
  rejected: true;
  code: C;
  detail?: string;
  errors?: FieldError[];
  currentRevision?: number;
  /** The AD-3 reason behind a refusal that re-checked authority (e.g. `recovery_refused`). */
  reason?: string;
};

/** Reports every problem found, not just the first. */
export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

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
