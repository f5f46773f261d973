import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { indexHeaders, singleHeader } from '../../sources/headers.js';
import { problems } from '../problems/problem.js';
import { PUBLIC_ROUTE, REQUIRED_SCOPE } from './auth.decorators.js';
import { PRINCIPAL } from './principal.js';
import { TokenRejected, TokenVerifier } from './token-verifier.js';

/** RFC 7235 §2.1: the scheme name is case-insensitive ("bearer", "BEARER"); the token is a compact JWS. */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i;

/** Global guard: every route needs a valid token unless marked @Public(); scopes per @RequireScope. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TokenVerifier) private readonly verifier: TokenVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    // Node keeps the first of two Authorization headers and drops the other: the identity would depend on their
    // order, so two are refused (SEC-1 fails closed), as ingress refuses a repeated security header.
    const indexed = indexHeaders(request.raw);
    const header = indexed.ok ? singleHeader(indexed.index, 'authorization') : indexed;
    if (!header.ok) throw problems.unauthenticated('Send exactly one "Authorization: Bearer <JWT>" header.');
    const match = header.value === null ? null : BEARER.exec(header.value);
    if (!match) throw problems.unauthenticated('Send "Authorization: Bearer <JWT>".');
    let principal;
    try {
      principal = await this.verifier.verify(match[1]!);
    } catch (error) {
      if (error instanceof TokenRejected) throw problems.unauthenticated(`The token was rejected: ${error.message}.`);
      throw error;
    }
    (request as unknown as Record<symbol, unknown>)[PRINCIPAL] = principal;
    const scopes = this.reflector.getAllAndOverride<readonly string[] | undefined>(REQUIRED_SCOPE, targets);
    if (scopes && !scopes.some((scope) => principal.scopes.has(scope))) throw problems.insufficientScope(scopes[0]!);
    return true;
  }
}
