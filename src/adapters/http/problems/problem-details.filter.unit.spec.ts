import { jest } from '@jest/globals';
import { type ArgumentsHost, BadRequestException, Logger } from '@nestjs/common';
import { ProblemDetailsFilter } from './problem-details.filter.js';

function hostFor(requestId: string) {
  const sent: { status?: number; body?: any } = {};
  const reply = {
    status(code: number) {
      sent.status = code;
      return reply;
    },
    headers: () => reply,
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  const request = { id: requestId, method: 'PUT', routeOptions: { url: '/v1/missions/:missionId' } };
  const host = {
    switchToHttp: () => ({ getResponse: () => reply, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('ProblemDetailsFilter (SEC-4)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs every 5xx once, with its request id', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = hostFor('req-77');
    new ProblemDetailsFilter().catch(new Error('boom'), host);
    expect(sent.status).toBe(500);
    expect(error).toHaveBeenCalledTimes(1);
    expect(String(error.mock.calls[0]![0])).toMatch(
      /^500 internal_error request req-77 PUT \/v1\/missions\/:missionId: Error: boom/,
    );
  });

  it("answers PostgreSQL's refusal of NUL (22021, 22P05) with a 400 problem, not a 500, and logs no error", () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    for (const code of ['22021', '22P05']) {
      const { host, sent } = hostFor('req-1');
      new ProblemDetailsFilter().catch(
        new Error('write failed', { cause: Object.assign(new Error('invalid byte sequence'), { code }) }),
        host,
      );
      expect({ code, status: sent.status, problem: sent.body.code }).toEqual({
        code,
        status: 400,
        problem: 'BAD_REQUEST',
      });
    }
    expect(error).not.toHaveBeenCalled();
  });
});

describe('ProblemDetailsFilter: framework 400s (api.md Conventions, Validation)', () => {
  it('gives a 400 the framework raised, as an HttpException or with a statusCode, an errors list', () => {
    for (const exception of [
      new BadRequestException('Request body size did not match Content-Length'),
      Object.assign(new Error('Request body size did not match Content-Length'), { statusCode: 400 }),
    ]) {
      const { host, sent } = hostFor('req-2');
      new ProblemDetailsFilter().catch(exception, host);
      expect(sent.status).toBe(400);
      expect(sent.body).toMatchObject({
        code: 'BAD_REQUEST',
        errors: [{ pointer: '', message: 'Request body size did not match Content-Length' }],
      });
    }
  });
});
