import type { FastifyInstance } from 'fastify';
import { checkJsonBounds, isPrintableName } from '../../domain/shared/json-bounds.js';
import { problems } from './problems/problem.js';

/**
 * WH-1 / SEC-4: path ids, then every parsed REST body, passes the bounded JSON rule before a guard, interceptor or
 * handler sees it — so nothing deep, infinite, NUL-bearing or half a surrogate pair is fingerprinted
 * (SEC-3) or stored. The ingress route keeps raw bytes (a Buffer) and checks after verification instead.
 */
export function registerJsonBounds(fastify: FastifyInstance, maxDepth: number): void {
  fastify.addHook('preValidation', async (request) => {
    // Path ids reach the idempotency record (an interceptor, before any pipe) and queries: NUL and
    // control characters stop here. (The ingress route answered its own 404 already in onRequest.)
    for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>))
      if (typeof value === 'string' && !isPrintableName(value))
        throw problems.badRequest(
          [{ pointer: '', message: `the path parameter ${name} must not contain control characters` }],
          'Invalid resource id.',
        );
    const body: unknown = request.body;
    if (body === undefined || body === null || Buffer.isBuffer(body)) return;
    const violation = checkJsonBounds(body, maxDepth);
    if (violation) throw problems.badRequest([violation], `The body is not accepted: ${violation.message}.`);
  });
}
