import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { HttpTimeouts } from '../config/http.section.js';
import { clientErrorProblem } from './problems/client-error.js';

/** Keep-alive is bounded in time (keepAliveMs) and in requests, so one client cannot pin a socket forever. */
export const MAX_REQUESTS_PER_SOCKET = 1000;

/**
 * Fastify/Node options that cut slow senders (WH-1, SEC-4: a 408 problem-less close, never a held socket).
 * Node enforces the headers and request timeouts from a periodic sweep (30 s by default), so a timeout would
 * be overshot by up to that much: the sweep runs at a quarter of the shortest timeout, at most every second.
 */
export function serverTimeoutOptions(timeouts: HttpTimeouts): FastifyHttpOptions<Server> {
  const sweepMs = Math.max(25, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)));
  return {
    // Socket inactivity with a request open (answer included): longer than a claim-next long poll.
    connectionTimeout: timeouts.idleMs,
    // Whole request, headers and body; Node does not apply it to the answer, so long polls are unaffected.
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    maxRequestsPerSocket: MAX_REQUESTS_PER_SOCKET,
    clientErrorHandler: clientErrorProblem,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: sweepMs,
    },
  };
}
