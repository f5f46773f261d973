import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { CommandContext, RequestIdentity } from '../../../commands/shared/command-context.js';
import { PRINCIPAL, type Principal } from '../auth/principal.js';
import { REQUEST_IDENTITY } from '../idempotency/idempotency.decorators.js';

/** The command context of an authenticated request: tenant and actor from the token, never from the body. */
export const Ctx = createParamDecorator((_: unknown, context: ExecutionContext): CommandContext => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const principal = (request as unknown as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!principal) throw new Error('Ctx used on a public route');
  const idempotency = (request as unknown as Record<symbol, RequestIdentity | undefined>)[REQUEST_IDENTITY];
  return {
    tenant: principal.tenant,
    actor: principal.subject,
    correlationId: String(request.id),
    ...(idempotency ? { idempotency } : {}),
  };
});
