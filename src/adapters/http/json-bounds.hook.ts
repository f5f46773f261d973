import type { FastifyInstance } from 'fastify';
import { checkJsonBounds } from '../../domain/shared/json-bounds.js';
import { problems } from './problems/problem.js';

/**
 * WH-1 / SEC-4: every parsed REST body passes the bounded JSON rule before a guard, interceptor or
 * handler sees it — so nothing deep, infinite, NUL-bearing or half a surrogate pair is fingerprinted
 * (SEC-3) or stored. The ingress route keeps raw bytes (a Buffer) and checks after verification instead.
 */
export function registerJsonBounds(fastify: FastifyInstance, maxDepth: number): void {
  fastify.addHook('preValidation', async (request) => {
    const body: unknown = request.body;
    if (body === undefined || body === null || Buffer.isBuffer(body)) return;
    const violation = checkJsonBounds(body, maxDepth);
    if (violation) throw problems.badRequest([violation], `The body is not accepted: ${violation.message}.`);
  });
}
