import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CommandRejected, StoreUnavailable, WrongExpectedRevision } from '../../../domain/shared/errors.js';
import { Problem, problems } from './problem.js';
import { databaseTextRejection } from './database-rejection.js';
import { rejectionProblem } from './rejection-problem.js';

const TITLES: Record<number, [string, string]> = {
  400: ['BAD_REQUEST', 'Bad request'],
  401: ['UNAUTHENTICATED', 'Unauthenticated'],
  403: ['INSUFFICIENT_SCOPE', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  413: ['payload_too_large', 'Payload too large'],
  415: ['malformed_request', 'Unsupported media type'],
};

/** Every error leaves as application/problem+json with a stable code; never a stack trace (SEC-4). */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problems');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const problem = this.toProblem(exception);
    // Once per 5xx, with the request id, so an operator can match the answer to its cause.
    if (problem.code === 'store_unavailable')
      this.logger.warn(
        `503 store_unavailable request ${request?.id ?? '?'} ${request?.method ?? ''} ${request?.routeOptions?.url ?? ''}`,
      );
    // `not_ready` is a readiness poll's expected answer while the service starts, not an error.
    else if (problem.status >= 500 && problem.code !== 'not_ready')
      this.logger.error(
        `${problem.status} ${problem.code} request ${request?.id ?? '?'} ${request?.method ?? ''} ${request?.routeOptions?.url ?? ''}: ` +
          (exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)),
      );
    void reply
      .status(problem.status)
      .headers({ ...problem.headers, 'content-type': 'application/problem+json' })
      .send(renderProblem(problem));
  }

  private toProblem(exception: unknown): Problem {
    if (exception instanceof Problem) return exception;
    if (exception instanceof CommandRejected) return rejectionProblem(exception.rejection);
    if (exception instanceof StoreUnavailable || (exception as { name?: string })?.name === 'StoreUnavailable')
      return problems.storeUnavailable();
    if (exception instanceof WrongExpectedRevision) return problems.revisionConflict(exception.actual + 1);
    const refusedText = databaseTextRejection(exception);
    if (refusedText) return refusedText;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const [code, title] = TITLES[status] ?? [status >= 500 ? 'internal_error' : 'BAD_REQUEST', exception.message];
      return new Problem(status, code, title, status === 404 ? 'No such resource.' : exception.message);
    }
    const status = (exception as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // Fastify's own rejections (body too large, bad JSON, bad content type) before Nest sees the request
      const [code, title] = TITLES[status] ?? ['BAD_REQUEST', 'Bad request'];
      return status === 400
        ? problems.badRequest([{ pointer: '', message: 'The body is not valid JSON.' }])
        : new Problem(status, code, title, (exception as Error).message);
    }
    return new Problem(500, 'internal_error', 'Internal error', 'An unexpected error occurred.');
  }
}

export function renderProblem(problem: Problem): Record<string, unknown> {
  return {
    type: `https://reveille.dev/problems/${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    ...(problem.detail ? { detail: problem.detail } : {}),
    ...problem.extras,
  };
}
