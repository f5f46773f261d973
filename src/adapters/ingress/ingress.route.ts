import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { databaseTextRejection } from '../http/problems/database-rejection.js';
import { IngressPipeline } from './ingress-pipeline.js';
import { type IngressAnswer, problemAnswer, shed } from './ingress-answer.js';
import type { IngressSource } from './source-registry.js';
import { SourceCache } from './source-cache.js';
import { IngressCounts } from './ingress-counts.js';
import { TokenBuckets } from './token-bucket.js';

/** The largest body any source may allow; each source's own limit is enforced while reading. */
export const MAX_INGRESS_BODY_BYTES = 1024 * 1024;
const MAX_HEADERS = 100;
const LOOKUP_RATE = { perSecond: 200, burst: 400 };
const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
// After an early 413 the rest of the body is read and dropped up to these bounds: closing a socket with
// unread bytes resets it, and a reset makes the sender's kernel drop the answer it had not read yet.
const LINGER = { ms: 1_000, bytes: 8 * 1024 * 1024 };
const logger = new Logger('Ingress');

interface IngressRequest extends FastifyRequest<{ Params: { sourceId: string } }> {
  ingressSource?: IngressSource;
}

/** Raw bytes kept exactly; the cheap checks run before the body is read or the database is asked (WH-1, WH-8). */
export function registerIngressRoute(
  fastify: FastifyInstance,
  deps: {
    pipeline: IngressPipeline;
    sources: SourceCache;
    /** Every answer, whatever step gave it (OP-4). */
    answered: (status: number) => void;
    counts: IngressCounts;
    globalRate: { perSecond: number; burst: number };
  },
): void {
  const buckets = new TokenBuckets();
  fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, payload, done) =>
      readCapped(payload, (request as IngressRequest).ingressSource?.definition.maxBodyBytes ?? 0, done),
    );

    scope.addHook('onResponse', async (_request, reply) => deps.answered(reply.statusCode));

    scope.addHook('onRequest', async (raw, reply) => {
      const request = raw as IngressRequest;
      const { sourceId } = request.params;
      const global = buckets.take('\u0000global', deps.globalRate.perSecond, deps.globalRate.burst);
      if (!global.ok)
        return send(reply, shed('global_rate', 'The service is shedding load.', global.retryAfterSeconds));
      if (!SOURCE_ID.test(sourceId)) return send(reply, problemAnswer(404, 'not_found', 'No such source.'));
      if (request.raw.rawHeaders.length / 2 > MAX_HEADERS)
        return send(reply, problemAnswer(400, 'malformed_request', `more than ${MAX_HEADERS} headers`));
      // Sources are looked up at most once a second each (SourceCache); lookups of ids not in the cache
      // (a storm of random ids) get their own small budget, so no flood reaches the database unbounded.
      if (!deps.sources.has(sourceId)) {
        const lookup = buckets.take('\u0000lookup', LOOKUP_RATE.perSecond, LOOKUP_RATE.burst);
        if (!lookup.ok)
          return send(reply, shed('lookup_rate', 'Too many requests for unknown sources.', lookup.retryAfterSeconds));
      }
      const source = await deps.sources.get(sourceId);
      if (!source) return send(reply, problemAnswer(404, 'not_found', 'No such source.'));
      const limit = source.definition.rateLimit;
      const own = buckets.take(`rate:${source.tenant}:${sourceId}`, limit.perSecond, limit.burst);
      if (!own.ok) {
        deps.counts.count(sourceId, 'refused', 'source_rate');
        return send(reply, shed('source_rate', 'This source is over its rate limit.', own.retryAfterSeconds));
      }
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > source.definition.maxBodyBytes) {
        deps.counts.count(sourceId, 'refused', 'payload_too_large');
        dropRestOfBody(request.raw);
        cutAfterAnswer(request.raw, reply.raw);
        return send(
          reply,
          problemAnswer(413, 'payload_too_large', `The body exceeds ${source.definition.maxBodyBytes} bytes.`),
        );
      }
      request.ingressSource = source;
    });

    scope.setErrorHandler((error: { statusCode?: number; message: string; name?: string }, request, reply) => {
      const known = (request as IngressRequest).ingressSource;
      if (known && error.statusCode && error.statusCode < 500)
        deps.counts.count(
          known.sourceId,
          'refused',
          error.statusCode === 413 ? 'payload_too_large' : 'malformed_request',
        );
      if (error.name === 'StoreUnavailable')
        return send(
          reply,
          problemAnswer(503, 'store_unavailable', 'Nothing was persisted; retry the delivery.', { 'Retry-After': '1' }),
        );
      if (error.statusCode === 413) {
        // Fastify asks for `connection: close` after a failed body read; closing at once, with the
        // rest of the body unread, would reset the connection under the 413. cutAfterAnswer closes it.
        reply.removeHeader('connection');
        cutAfterAnswer(request.raw, reply.raw);
        return send(reply, problemAnswer(413, 'payload_too_large', 'The body exceeds the source limit.'));
      }
      if (error.statusCode && error.statusCode < 500)
        return send(reply, problemAnswer(400, 'malformed_request', error.message));
      if (databaseTextRejection(error))
        return send(reply, problemAnswer(400, 'malformed_request', 'The delivery holds text that cannot be stored.'));
      // Logged once, with the request id: a producer retries a 500, so each one needs finding.
      logger.error(
        `500 internal_error request ${request.id} ingress ${(request as IngressRequest).params?.sourceId ?? ''}: ` +
          ((error as Error).stack ?? error.message),
      );
      return send(reply, problemAnswer(500, 'internal_error', 'An unexpected error occurred.'));
    });

    scope.post('/v1/ingress/:sourceId', { bodyLimit: MAX_INGRESS_BODY_BYTES }, async (raw, reply) => {
      const request = raw as IngressRequest;
      const source = request.ingressSource!;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
      );
      return send(reply, await deps.pipeline.handle(source, { rawHeaders: request.raw.rawHeaders, headers, body }));
    });
  });
}

function send(reply: FastifyReply, result: IngressAnswer): FastifyReply {
  return reply.code(result.status).headers(result.headers).send(result.body);
}

/** Buffers at most `limit` bytes; past it, answers 413 and drops the rest while the answer gets out (WH-1). */
function readCapped(payload: Readable, limit: number, done: (error: Error | null, body?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (error: Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    done(error, body);
  };
  payload.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      chunks.length = 0;
      dropRestOfBody(payload as IncomingMessage);
      return finish(Object.assign(new Error('body too large'), { statusCode: 413 }));
    }
    chunks.push(chunk);
  });
  payload.on('end', () => finish(null, Buffer.concat(chunks)));
  payload.on('error', (error) => finish(error));
}

function dropRestOfBody(request: IncomingMessage): void {
  request.removeAllListeners('data');
  request.on('data', () => undefined);
  request.resume();
}

/** The sender has LINGER to read the 413; then the connection is cut, so an endless body cannot hold it. */
function cutAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  response.once('finish', () => {
    if (request.complete) return;
    let dropped = 0;
    const cut = () => request.socket.destroy();
    const timer = setTimeout(cut, LINGER.ms).unref();
    request.on('data', (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER.bytes) cut();
    });
    request.once('end', () => clearTimeout(timer));
    request.socket.once('close', () => clearTimeout(timer));
  });
}
