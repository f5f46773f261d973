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
    // Fastify's own rejections before Nest sees the request (body too large, bad content type or length) arrive
    // as an HttpException (Nest maps them) or, on paths Nest does not map, with a statusCode.
    if (exception instanceof HttpException) return frameworkProblem(exception.getStatus(), exception.message);
    const status = (exception as { statusCode?: number })?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return frameworkProblem(status, (exception as Error).message);
    return new Problem(500, 'internal_error', 'Internal error', 'An unexpected error occurred.');
  }
}

/** api.md: every 400 carries `errors: [{ pointer, message }]`; a framework's refusal concerns the whole request. */
function frameworkProblem(status: number, message: string): Problem {
  if (status === 400) return problems.badRequest([{ pointer: '', message }], message);
  // A content-type header Fastify cannot parse as a media type: not JSON, as any other type (json-body.ts).
  if (status === 415) return problems.notJsonMediaType();
  const [code, title] = TITLES[status] ?? [status >= 500 ? 'internal_error' : 'BAD_REQUEST', message];
  return new Problem(status, code, title, status === 404 ? 'No such resource.' : message);
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
