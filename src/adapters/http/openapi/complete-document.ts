import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ResponseObject } from '@nestjs/swagger';
import { guardClauseSchema } from './definition-schemas.js';
import { array, int, obj, str, type SchemaObject } from './schema.js';

/** Set by `WithoutIdempotencyKey` on the operations that take no key (ingress, pure computations). */
export const NO_IDEMPOTENCY_KEY = 'x-idempotency-key';
const WRITES = ['post', 'put', 'delete'] as const;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** RFC 9457 with the stable `code` (SEC-4); the members a few problems add are listed too. */
const problemSchema: SchemaObject = obj(
  {
    type: str(),
    title: str(),
    status: int(400, 599),
    code: str({ description: 'stable; see each response for the codes it can carry' }),
    detail: str(),
    errors: array(obj({ pointer: str(), message: str() }, ['pointer', 'message']), undefined, {
      description: 'BAD_REQUEST and invalid_definition: one entry per faulty member',
    }),
    currentRevision: int(0, undefined, { description: 'revision_conflict' }),
    reason: str({ description: 'recovery_refused, rate_limited: why' }),
  },
  ['type', 'title', 'status', 'code'],
);

const idempotencyKey: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: true,
  description:
    'SEC-3: 1–255 visible ASCII; missing: 400 idempotency_key_required, malformed: 400 idempotency_key_invalid, ' +
    'first use still running after a wait of up to 5 s: 409 idempotency_key_in_flight with Retry-After. A replay answers the first response with Idempotency-Replayed: true.',
  schema: str({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' }),
};

/** Added where a route does not already state them, with the codes api.md's Conventions give every route. */
const UNIFORM: Record<string, string> = {
  '400': 'BAD_REQUEST',
  '401': 'UNAUTHENTICATED',
  '403': 'INSUFFICIENT_SCOPE',
  '503': 'store_unavailable',
};
/** Fastify's own refusals of a command body, rendered by the problem filter. */
const BODIES: Record<string, string> = {
  '413': 'payload_too_large (over 1 MiB)',
};
const KEYED: Record<string, string> = {
  '400': 'idempotency_key_required, idempotency_key_invalid',
  '409': 'idempotency_key_conflict, idempotency_key_in_flight',
};

/**
 * What is uniform to every operation, written once instead of on each route: the Idempotency-Key header
 * where it is required, the problem responses with the shared Problem schema, and the routes registered on
 * Fastify directly (`extraPaths`, e.g. webhook ingress), which Nest's explorer cannot see.
 */
export function completeDocument(document: OpenAPIObject, extraPaths: Record<string, PathItemObject>): OpenAPIObject {
  const components = document.components ?? {};
  components.schemas = { ...components.schemas, Problem: problemSchema, GuardClause: guardClauseSchema };
  components.parameters = { ...components.parameters, IdempotencyKey: idempotencyKey };
  const paths = { ...document.paths, ...extraPaths };
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) completeOperation(path, method, operation);
    }
  }
  return { ...document, components, paths };
}

function completeOperation(path: string, method: (typeof METHODS)[number], operation: OperationObject): void {
  const authenticated = operation.security !== undefined && operation.security.length > 0;
  const keyed = (WRITES as readonly string[]).includes(method) && !(NO_IDEMPOTENCY_KEY in operation);
  const responses = operation.responses;
  // Nest's explorer lists an `@Headers('idempotency-key')` argument as an optional header; the shared one replaces it.
  const parameters = (operation.parameters ?? []).filter(
    (p) => !('name' in p && p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
  );
  if (keyed) {
    parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    for (const [status, codes] of Object.entries(KEYED)) addCodes(responses, status, codes);
  }
  operation.parameters = parameters;
  if (authenticated) for (const [status, codes] of Object.entries(UNIFORM)) addCodes(responses, status, codes);
  if (authenticated && path.includes('{')) addCodes(responses, '404', 'not_found');
  if (authenticated && operation.requestBody)
    for (const [status, codes] of Object.entries(BODIES)) addCodes(responses, status, codes);
  for (const [status, response] of Object.entries(responses)) {
    if (!response || Number(status) < 400 || '$ref' in response) continue;
    response.content = { 'application/problem+json': { schema: PROBLEM_REF } };
  }
}

/** Keeps a route's own description and adds the uniform codes it does not name yet. */
function addCodes(responses: OperationObject['responses'], status: string, codes: string): void {
  const existing = responses[status] as ResponseObject | undefined;
  const prefix = 'application/problem+json, code: ';
  if (!existing) {
    responses[status] = { description: `${prefix}${codes}` };
    return;
  }
  const missing = codes.split(', ').filter((code) => !existing.description.includes(code));
  if (missing.length > 0) existing.description = `${existing.description}, ${missing.join(', ')}`;
}
