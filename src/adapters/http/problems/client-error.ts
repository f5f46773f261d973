import type { Socket } from 'node:net';
import { Problem } from './problem.js';
import { renderProblem } from './problem-details.filter.js';

interface ClientProblem {
  status: number;
  reason: string;
  code: string;
  title: string;
  detail: string;
}

/** Errors Node raises before a request reaches Fastify's routing; anything else is a malformed request. */
function problemFor(error: NodeJS.ErrnoException): ClientProblem {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      reason: 'Request Timeout',
      code: 'request_timeout',
      title: 'Request timeout',
      detail: 'The request (headers or body) was not received in time; the connection is closed.',
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      reason: 'Request Header Fields Too Large',
      code: 'headers_too_large',
      title: 'Headers too large',
      detail: 'The request headers exceed the limit.',
    };
  }
  return {
    status: 400,
    reason: 'Bad Request',
    code: 'BAD_REQUEST',
    title: 'Bad request',
    detail: 'The request is not valid HTTP.',
  };
}

/** How long a client whose connection was cut may take to read the problem before the socket is destroyed. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Fastify's clientErrorHandler: slow senders (WH-1) and broken HTTP get an RFC 9457 problem like every other
 * error (SEC-4), then the connection is closed; a reset connection gets nothing.
 *
 * Closed with a FIN after the problem, not destroyed at once: a slow sender still has bytes in flight, and closing
 * a socket with unread input sends a reset, which makes the client's kernel drop the problem it has not read yet.
 * The client closes its side once it has read it; one that does not is destroyed after CLOSE_GRACE_MS.
 */
export function clientErrorProblem(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) return void socket.destroy();
  const { status, reason, code, title, detail } = problemFor(error);
  const body = JSON.stringify(renderProblem(new Problem(status, code, title, detail)));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  const grace = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  grace.unref();
  socket.once('close', () => clearTimeout(grace));
}

/**
 * The longest path segment the router matches as a parameter. Ids are at most 128 characters (their validators
 * answer 400 or 404 beyond); Fastify's default of 100 refused valid 101–128-character ids with its own 414.
 */
export const MAX_PARAM_LENGTH = 1_024;

/** Fastify's frameworkErrors: a URL it cannot decode, or a segment past MAX_PARAM_LENGTH, as a problem too. */
export function frameworkErrorProblem(error: { code?: string }): Problem {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new Problem(414, 'uri_too_long', 'URI too long', `A path segment exceeds ${MAX_PARAM_LENGTH} characters.`);
  return new Problem(400, 'BAD_REQUEST', 'Bad request', 'The request URL is malformed.', { errors: [] });
}
