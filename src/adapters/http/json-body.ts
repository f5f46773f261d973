import { pointerTo } from '../../domain/shared/json-pointer.js';
import { indexHeaders, singleHeader } from '../sources/headers.js';
import { type FieldError, problems } from './problems/problem.js';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The parser of `application/json` REST bodies (the ingress route keeps its raw bytes and parses after verifying).
 *
 * Fastify's default parser answered every refusal with one message, "Body is not valid JSON", and no `errors`
 * list: an empty body, a syntax error, and also a well-formed body holding a `__proto__` member, which is valid
 * JSON refused on purpose. Each refusal here is a 400 BAD_REQUEST with `errors: [{ pointer, message }]` saying
 * which it is. Prototype poisoning stays refused, as Fastify did: a `__proto__` member, and a `constructor`
 * member holding a `prototype` member, anywhere in the body.
 */
export function parseJsonBody(
  request: unknown,
  body: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  const received = request as { headers?: Record<string, unknown>; raw?: { rawHeaders?: readonly string[] } } | null;
  // Node keeps the first of two content-type headers: which one decides how the body is read is refused, as ingress does.
  const rawHeaders = received?.raw?.rawHeaders;
  const indexed = rawHeaders ? indexHeaders(rawHeaders) : null;
  if (indexed && !(indexed.ok && singleHeader(indexed.index, 'content-type').ok))
    return done(
      problems.badRequest(
        [{ pointer: '', message: 'Send one content-type header: application/json.' }],
        'The content-type header appears more than once.',
      ),
    );
  const charset = declaredCharset(received?.headers?.['content-type']);
  if (charset !== null && charset.toLowerCase() !== 'utf-8')
    return done(
      problems.badRequest(
        [{ pointer: '', message: 'JSON bodies are UTF-8 (RFC 8259): send charset=utf-8 or no charset.' }],
        'The body is declared in a charset other than UTF-8.',
      ),
    );
  if (body.length === 0)
    return done(
      problems.badRequest(
        [{ pointer: '', message: 'The body is empty; with content-type application/json it must be a JSON object.' }],
        'The body is empty.',
      ),
    );
  // Not Buffer#toString: it turns bytes that are not UTF-8 into U+FFFD, which would then be stored in the log.
  let text: string;
  try {
    text = STRICT_UTF8.decode(body);
  } catch {
    return done(
      problems.badRequest(
        [{ pointer: '', message: 'JSON bodies are UTF-8 (RFC 8259): the body holds bytes that are not UTF-8.' }],
        'The body is not valid UTF-8.',
      ),
    );
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return done(
      problems.badRequest([{ pointer: '', message: 'The body is not valid JSON.' }], 'The body is not valid JSON.'),
    );
  }
  const poisoned = MAY_POISON.test(text) ? findPrototypePoisoning(value) : null;
  if (poisoned) return done(problems.badRequest([poisoned], `The body is not accepted: ${poisoned.message}.`));
  done(null, value);
}

/**
 * The `charset` parameter of a content type (unquoted), or null without one. JSON is UTF-8 (RFC 8259): a body
 * declared in another charset (`latin1`, `iso-8859-1`, `utf-16`) would otherwise be decoded as UTF-8 and its
 * non-ASCII text silently turned into U+FFFD. The ingress route refuses it on its own (content-type.ts).
 */
function declaredCharset(contentType: unknown): string | null {
  if (typeof contentType !== 'string') return null;
  for (const parameter of contentType.split(';').slice(1)) {
    const match = /^\s*charset\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))\s*$/i.exec(parameter);
    if (match) return (match[1] ?? match[2] ?? '').replace(/\\(.)/g, '$1');
  }
  return null;
}

/**
 * The parser of every REST body that is not `application/json` (api.md Conventions: JSON bodies; anything else
 * is 400 BAD_REQUEST). Before it, Nest parsed `application/x-www-form-urlencoded` into an object and ran the
 * command with it, Fastify parsed `text/plain` into a string, and other types were 415 `malformed_request`, an
 * ingress code. An empty body declares nothing and is no body, as without a content type: the commands that take
 * an optional body (`…/disable`, `…/keys`) still work from a client that labels an empty POST `text/plain`.
 */
export function refuseNonJsonBody(
  _request: unknown,
  body: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  if (body.length === 0) return done(null, undefined);
  done(problems.notJsonMediaType());
}

/**
 * A cheap test on the text first, as secure-json-parse does, so bodies without either name are not walked;
 * a name spelt with JSON escapes (`"\u005f_proto__"`) is still a candidate.
 */
const MAY_POISON =
  /(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])|(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)/;

interface Visit {
  value: unknown;
  key: string;
  parent: Visit | null;
}

/**
 * Iterative, so a body nested 100,000 deep (refused later by the depth bound) cannot exhaust the stack here;
 * each node keeps a link to its parent rather than its pointer, which is built only for the member found.
 */
function findPrototypePoisoning(value: unknown): FieldError | null {
  const stack: Visit[] = [{ value, key: '', parent: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const item = visit.value;
    if (typeof item !== 'object' || item === null) continue;
    if (!Array.isArray(item)) {
      if (Object.hasOwn(item, '__proto__'))
        return {
          pointer: pointerOf(visit, ['__proto__']),
          message: 'a member named "__proto__" is not accepted (prototype poisoning)',
        };
      const constructor: unknown = Object.hasOwn(item, 'constructor')
        ? (item as Record<string, unknown>).constructor
        : undefined;
      if (typeof constructor === 'object' && constructor !== null && Object.hasOwn(constructor, 'prototype'))
        return {
          pointer: pointerOf(visit, ['constructor', 'prototype']),
          message: 'a "constructor" member holding a "prototype" member is not accepted (prototype poisoning)',
        };
    }
    for (const [key, child] of Object.entries(item)) stack.push({ value: child, key, parent: visit });
  }
  return null;
}

/** The pointer of a member 100,000 levels down would itself be a hostile answer: past 16 levels it is cut. */
function pointerOf(visit: Visit, tail: string[]): string {
  const ancestors: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) ancestors.push(at.key);
  const keys = [...ancestors.reverse(), ...tail];
  const shown = keys.length > 16 ? keys.slice(0, 16) : keys;
  const pointer = shown.reduce((base, key) => pointerTo(base, key), '');
  return keys.length > 16 ? `${pointer}/…` : pointer;
}
