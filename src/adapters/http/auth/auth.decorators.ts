import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse } from '@nestjs/swagger';
import { PRINCIPAL, type Principal, type Scope } from './principal.js';

export const PUBLIC_ROUTE = 'reveille:public';
export const REQUIRED_SCOPE = 'reveille:scope';

/** No bearer token: webhook ingress (its source scheme authenticates), health, metrics, docs, UI. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

const problem = (status: number, codes: string) =>
  ApiResponse({ status, description: `application/problem+json, code: ${codes}` });

/**
 * SEC-2: 403 INSUFFICIENT_SCOPE without it (or without every one of `alsoAccepted`: any of them will do); shown in
 * the OpenAPI document as `x-required-scope`, the others as `x-also-accepted-scopes`.
 */
export const RequireScope = (scope: Scope, ...alsoAccepted: Scope[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE, [scope, ...alsoAccepted]),
    ApiBearerAuth(),
    ApiExtension('x-required-scope', scope),
    ...(alsoAccepted.length > 0 ? [ApiExtension('x-also-accepted-scopes', alsoAccepted)] : []),
    problem(400, 'BAD_REQUEST, idempotency_key_required, idempotency_key_invalid'),
    problem(401, 'UNAUTHENTICATED'),
    problem(403, 'INSUFFICIENT_SCOPE'),
    problem(503, 'store_unavailable'),
  );

/** Route-specific problems, listed in the OpenAPI document beside the common ones. */
export const Problems = (...entries: Array<[status: number, codes: string]>) =>
  applyDecorators(...entries.map(([status, codes]) => problem(status, codes)));

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = (context.switchToHttp().getRequest() as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!principal) throw new Error('route reads the principal but is public');
  return principal;
});
