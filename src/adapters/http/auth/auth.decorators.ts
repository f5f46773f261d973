import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { PRINCIPAL, type Principal, type Scope } from './principal.js';

export const PUBLIC_ROUTE = 'reveille:public';
export const REQUIRED_SCOPE = 'reveille:scope';

/** No bearer token: webhook ingress (its source scheme authenticates), health, metrics, docs, UI. */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);

/** The scope a route needs (SEC-2); a token without it gets 403 INSUFFICIENT_SCOPE. */
export const RequireScope = (scope: Scope) => SetMetadata(REQUIRED_SCOPE, scope);

export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = (context.switchToHttp().getRequest() as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!principal) throw new Error('route reads the principal but is public');
  return principal;
});
