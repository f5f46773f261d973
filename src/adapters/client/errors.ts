/** Throw from a handler when trying again cannot help (bad input, a revoked permission): completed as not retryable. */
export class NonRetryableError extends Error {
  readonly retryable = false;
  constructor(
    message: string,
    readonly code = 'non_retryable',
  ) {
    super(message);
    this.name = 'NonRetryableError';
  }
}

/** A thrown error as the `failed` completion: retryable unless the error says `retryable: false`. */
export function failureOf(error: unknown): { retryable: boolean; error: { code: string; message: string } } {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  return {
    retryable: fields.retryable !== false,
    error: {
      code: typeof fields.code === 'string' && fields.code ? fields.code : 'handler_error',
      message: (error instanceof Error ? error.message : String(error)).slice(0, 1000) || 'handler failed',
    },
  };
}
