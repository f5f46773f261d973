import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { NO_IDEMPOTENCY_KEY } from '../openapi/complete-document.js';

export const SKIP_IDEMPOTENCY = 'reveille:skip-idempotency';
export const REDACT_ON_STORE = 'reveille:redact-on-store';

/** Mutating routes that take no Idempotency-Key: webhook ingress and pure computations. */
export const WithoutIdempotencyKey = () =>
  applyDecorators(SetMetadata(SKIP_IDEMPOTENCY, true), ApiExtension(NO_IDEMPOTENCY_KEY, 'not used'));

/** Body members blanked (null) in the stored response, so a replay never discloses a secret. */
export const RedactOnReplay = (...members: string[]) => SetMetadata(REDACT_ON_STORE, members);

/** Where the interceptor leaves the claimed key and fingerprint for the command context (`Ctx`). */
export const REQUEST_IDENTITY = Symbol('reveille.requestIdentity');
