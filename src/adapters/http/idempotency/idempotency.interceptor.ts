import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { PRINCIPAL, type Principal } from '../auth/principal.js';
import { HttpResult } from '../http-result.js';
import { Problem } from '../problems/problem.js';
import { noticingReplayedWrites } from '../../../commands/shared/replayed-writes.js';
import { CONFIG } from '../../config/config.token.js';
import type { ReveilleConfig } from '../../config/config.js';
import { REDACT_ON_STORE, REQUEST_IDENTITY, SKIP_IDEMPOTENCY } from './idempotency.decorators.js';
import { IdempotencyStore, type KeyRequest } from './idempotency.store.js';
import { isValidIdempotencyKey, operationName, requestFingerprint } from './fingerprint.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const IN_FLIGHT_WAIT_MS = 5_000;
const IN_FLIGHT_RETRY_AFTER_SECONDS = 1;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SEC-3 for every mutating route: only a 2xx answer is stored, so a corrected request may reuse the key. */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(IdempotencyStore) private readonly keys: IdempotencyStore,
    @Inject(CONFIG) private readonly config: ReveilleConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = (request as unknown as Record<symbol, Principal | undefined>)[PRINCIPAL];
    const skip = this.reflector.getAllAndOverride<boolean>(SKIP_IDEMPOTENCY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!MUTATING.has(request.method) || skip || !principal) return next.handle();
    return from(this.handle(context, request, principal, next));
  }

  private async handle(
    context: ExecutionContext,
    request: FastifyRequest,
    principal: Principal,
    next: CallHandler,
  ): Promise<unknown> {
    const key = request.headers['idempotency-key'];
    if (key === undefined)
      throw new Problem(
        400,
        'idempotency_key_required',
        'Idempotency-Key required',
        'Every command needs an Idempotency-Key header.',
      );
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) {
      throw new Problem(
        400,
        'idempotency_key_invalid',
        'Invalid Idempotency-Key',
        'An Idempotency-Key is 1 to 255 visible ASCII characters.',
      );
    }
    const operation = operationName(
      request.method,
      request.routeOptions.url ?? request.url,
      (request.params ?? {}) as Record<string, string>,
    );
    const claim: KeyRequest = {
      tenant: principal.tenant,
      key,
      operation,
      fingerprint: requestFingerprint({
        operation,
        tenant: principal.tenant,
        subject: principal.subject,
        body: request.body,
      }),
    };
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    let takenOver = false;
    for (;;) {
      const state = await this.keys.claim(claim);
      if (state.kind === 'claimed') {
        takenOver = state.takenOver === true;
        break;
      }
      if (state.kind === 'conflict') {
        throw new Problem(
          409,
          'idempotency_key_conflict',
          'Idempotency-Key conflict',
          'This Idempotency-Key was used for a different request.',
        );
      }
      if (state.kind === 'replay') return replayOf(state);
      // After a short wait for the first use's answer: a retry in a second will likely be replayed.
      if (Date.now() >= deadline)
        throw new Problem(
          409,
          'idempotency_key_in_flight',
          'Request in flight',
          'The first request with this Idempotency-Key is still executing.',
          {},
          { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_SECONDS) },
        );
      await sleep(25);
    }

    // The command's events carry the key, so a run after a crash finds what the first one committed
    (request as unknown as Record<symbol, unknown>)[REQUEST_IDENTITY] = {
      key,
      fingerprint: claim.fingerprint,
      ...(takenOver ? { takenOver } : {}),
    };
    let ran: { result: unknown; replayed: boolean };
    try {
      ran = await noticingReplayedWrites(() => lastValueFrom(next.handle(), { defaultValue: undefined }));
    } catch (error) {
      await this.keys.release(claim).catch(() => undefined);
      throw error;
    }
    const { result, replayed } = ran;
    const status = result instanceof HttpResult ? result.status : this.defaultStatus(context, request.method);
    const body = result instanceof HttpResult ? result.body : result;
    if (status >= 200 && status < 300) {
      if (!replayed) this.crashIfTestAsks(key);
      await this.keys.complete(claim, status, this.redact(context, body));
    } else {
      await this.keys.release(claim);
    }
    if (!replayed) return result;
    // Answered from the events an earlier run committed: the answer that run never stored (SEC-3)
    const headers = result instanceof HttpResult ? result.headers : {};
    return new HttpResult(status, this.redact(context, body), { ...headers, 'Idempotency-Replayed': 'true' });
  }

  /** REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT: the crash between a commit and its stored answer, on demand (a replay commits nothing). */
  private crashIfTestAsks(key: string): void {
    const prefix = this.config.testOnly.crashAfterCommitKeyPrefix;
    if (prefix !== null && key.startsWith(prefix)) process.kill(process.pid, 'SIGKILL');
  }

  private defaultStatus(context: ExecutionContext, method: string): number {
    return Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) ?? (method === 'POST' ? 201 : 200);
  }

  private redact(context: ExecutionContext, body: unknown): unknown {
    const members = this.reflector.get<string[] | undefined>(REDACT_ON_STORE, context.getHandler());
    if (!members || typeof body !== 'object' || body === null) return body;
    return { ...body, ...Object.fromEntries(members.map((m) => [m, null])) };
  }
}

/**
 * The stored answer, byte for byte: its text is sent as it was serialized the first time (a string with a JSON
 * content type goes out unchanged), so a replay equals the original answer, member order included. An answer
 * stored before the text was kept is sent from its jsonb copy, whose members PostgreSQL reordered.
 */
function replayOf(state: { status: number; body: unknown; text: string | null }): HttpResult {
  const replayed = { 'Idempotency-Replayed': 'true' };
  if (state.text === null) return new HttpResult(state.status, state.body, replayed);
  return new HttpResult(state.status, state.text, { 'Content-Type': 'application/json; charset=utf-8', ...replayed });
}
