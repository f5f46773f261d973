import { failureOf, NonRetryableError } from './errors.js';

describe('consumer client: a thrown error as a failed completion', () => {
  it('is retryable unless the error says otherwise', () => {
    expect(failureOf(new Error('boom'))).toEqual({
      retryable: true,
      error: { code: 'handler_error', message: 'boom' },
    });
    expect(failureOf(new NonRetryableError('bad input', 'invalid_input'))).toEqual({
      retryable: false,
      error: { code: 'invalid_input', message: 'bad input' },
    });
    expect(failureOf(Object.assign(new Error('gone'), { retryable: false, code: 'revoked' }))).toEqual({
      retryable: false,
      error: { code: 'revoked', message: 'gone' },
    });
  });

  it('keeps a thrown non-error readable', () => {
    expect(failureOf('plain string')).toEqual({
      retryable: true,
      error: { code: 'handler_error', message: 'plain string' },
    });
  });
});
