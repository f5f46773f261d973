import { type Problem, problems } from './problem.js';

/**
 * SEC-4 backstop: text PostgreSQL cannot hold (NUL, lone surrogates, bad escapes) is the request's
 * fault, not the service's. The bounded JSON rule and id checks refuse it first; should any path slip
 * past them, the database's refusal still answers 400, never 500.
 */
const CLIENT_TEXT_CODES = new Set([
  '22021', // character_not_in_repertoire: "invalid byte sequence for encoding UTF8: 0x00"
  '22P05', // untranslatable_character: "unsupported Unicode escape sequence" (jsonb \u0000)
]);

export function databaseTextRejection(error: unknown): Problem | null {
  for (let cause = error, hops = 0; cause && hops < 4; cause = (cause as { cause?: unknown }).cause, hops++) {
    const code = (cause as { code?: unknown }).code;
    const { message, detail } = cause as { message?: unknown; detail?: unknown };
    // 22P02 (invalid_text_representation) is jsonb's answer to a lone surrogate escape; other 22P02s stay bugs.
    const surrogate = code === '22P02' && /surrogate|unicode/i.test(`${String(message)} ${String(detail)}`);
    if (typeof code === 'string' && (CLIENT_TEXT_CODES.has(code) || surrogate))
      return problems.badRequest(
        [{ pointer: '', message: 'the request holds text that cannot be stored (U+0000 or an unpaired surrogate)' }],
        'The request is not accepted.',
      );
  }
  return null;
}
