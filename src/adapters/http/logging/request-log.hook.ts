import { Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SampledLog } from './sampled-log.js';

const logger = new Logger('Http');
const PROBLEM_CODE = Symbol('problemCode');
const INGRESS = '/v1/ingress/:sourceId';
const QUIET_PREFIXES = ['/health/', '/metrics'];
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

type Tagged = FastifyRequest & { [PROBLEM_CODE]?: string };

/**
 * OP-4: one line per answered request, with its request id (also sent as `x-request-id`), route template (never the path's ids or a
 * query), status, problem code and time. Probes and accepted webhooks are debug lines (thousands a
 * second on a busy ingress); a refused webhook is an info line, sampled per source, status and code.
 * Bodies, headers and signatures are never logged.
 */
export function registerRequestLog(fastify: FastifyInstance, refusals = new SampledLog()): void {
  fastify.addHook('onSend', async (request: Tagged, reply, payload) => {
    // The id an operator searches the log for, on every answer (problems included).
    reply.header('x-request-id', request.id);
    if (reply.statusCode >= 400 && typeof payload === 'string') request[PROBLEM_CODE] = problemCode(payload);
    return payload;
  });
  fastify.addHook('onResponse', async (request: Tagged, reply) => {
    const line = requestLine(request, reply);
    if (line.route === INGRESS) return logIngress(line, request, refusals);
    if (QUIET_PREFIXES.some((prefix) => line.route.startsWith(prefix))) logger.debug(line);
    else logger.log(line);
  });
}

interface RequestLine {
  msg: 'request';
  requestId: string;
  method: string;
  route: string;
  status: number;
  code?: string;
  ms: number;
}

function requestLine(request: Tagged, reply: FastifyReply): RequestLine {
  const code = request[PROBLEM_CODE];
  return {
    msg: 'request',
    requestId: request.id,
    method: request.method,
    route: request.routeOptions?.url ?? '(no route)',
    status: reply.statusCode,
    ...(code ? { code } : {}),
    ms: Math.round(reply.elapsedTime * 10) / 10,
  };
}

function logIngress(line: RequestLine, request: FastifyRequest, refusals: SampledLog): void {
  if (line.status < 400) return logger.debug(line);
  const raw = (request.params as { sourceId?: string } | undefined)?.sourceId ?? '';
  // An unknown id is the sender's text: only an id of the source-id form is repeated into the log.
  const sourceId = SOURCE_ID.test(raw) ? raw : '(invalid id)';
  const held = refusals.admit(`${sourceId}\u0000${line.status}\u0000${line.code ?? ''}`);
  if (held === null) return;
  logger.log({ ...line, msg: 'webhook refused', sourceId, ...(held > 0 ? { heldBack: held } : {}) });
}

function problemCode(payload: string): string | undefined {
  if (payload.length > 64 * 1024) return undefined;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code.slice(0, 64) : undefined;
  } catch {
    return undefined;
  }
}
