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

/**
 * Fastify's clientErrorHandler: slow senders (WH-1) and broken HTTP get an RFC 9457 problem like every other
 * error (SEC-4), then the connection is closed; a reset connection gets nothing.
 */
export function clientErrorProblem(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, reason, code, title, detail } = problemFor(error);
  const body = JSON.stringify(renderProblem(new Problem(status, code, title, detail)));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
