import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import type { ReveilleConfig } from './adapters/config/config.js';
import { CONFIG } from './adapters/config/config.token.js';
import { AppendSignal } from './adapters/eventstore/append-signal.js';
import { TrustedClock } from './adapters/clock/trusted-clock.js';
import { EVENT_STORE } from './adapters/eventstore/event-store.port.js';
import type { Infrastructure } from './adapters/eventstore/infrastructure.js';
import { SQL_CLIENT } from './adapters/eventstore/sql/sql-client.js';
import { UpcasterRegistry } from './adapters/eventstore/upcasters.js';
import { AuthGuard } from './adapters/http/auth/auth.guard.js';
import { devJwks, loadOrCreateDevKeys } from './adapters/http/auth/dev-keys.js';
import { TokenVerifier } from './adapters/http/auth/token-verifier.js';
import { DEV_JWKS, DevJwksController } from './adapters/http/dev-jwks.controller.js';
import { HealthController } from './adapters/http/health/health.controller.js';
import { HttpResultInterceptor } from './adapters/http/http-result.interceptor.js';
import { IdempotencyInterceptor } from './adapters/http/idempotency/idempotency.interceptor.js';
import { IdempotencyStore } from './adapters/http/idempotency/idempotency.store.js';
import { IdempotencySweeper } from './adapters/http/idempotency/idempotency-sweeper.js';
import { ProblemDetailsFilter } from './adapters/http/problems/problem-details.filter.js';
import { validationPipe } from './adapters/http/validation.js';
import { ProjectionRunners } from './projections/runner/projection-runners.js';
import { SubscriptionRegistry } from './projections/runner/subscription-registry.js';
import { featureModules } from './features.js';

/** Nest is wiring: the stores are opened outside and handed in, so the CLI and tests share them. */
@Module({})
export class AppModule {
  static async forRoot(config: ReveilleConfig, infra: Infrastructure): Promise<DynamicModule> {
    const dev = config.auth.mode === 'dev';
    const jwks = dev ? devJwks(await loadOrCreateDevKeys(config.dataDir)) : null;
    const verifier = jwks
      ? TokenVerifier.fromJwks(jwks, config.auth.issuer, config.auth.audience)
      : config.auth.jwksUrl
        ? TokenVerifier.fromJwksUrl(config.auth.jwksUrl, config.auth.issuer, config.auth.audience)
        : TokenVerifier.fromJwksFile(config.auth.jwksFile!, config.auth.issuer, config.auth.audience);
    const core: Provider[] = [
      { provide: CONFIG, useValue: config },
      { provide: EVENT_STORE, useValue: infra.store },
      { provide: SQL_CLIENT, useValue: infra.sql },
      { provide: AppendSignal, useValue: infra.signal },
      { provide: UpcasterRegistry, useValue: infra.upcasters },
      { provide: TrustedClock, useValue: new TrustedClock(infra.store) },
      { provide: TokenVerifier, useValue: verifier },
      { provide: IdempotencyStore, useValue: new IdempotencyStore(infra.sql, config.idempotencyRetentionHours) },
      ...(jwks ? [{ provide: DEV_JWKS, useValue: jwks }] : []),
    ];
    return {
      module: AppModule,
      global: true,
      imports: [CqrsModule.forRoot(), TerminusModule, ...featureModules],
      controllers: [HealthController, ...(jwks ? [DevJwksController] : [])],
      providers: [
        ...core,
        SubscriptionRegistry,
        ProjectionRunners,
        IdempotencySweeper,
        { provide: APP_GUARD, useClass: AuthGuard },
        // Registration order is nesting order: the result interceptor must see what idempotency returns.
        { provide: APP_INTERCEPTOR, useClass: HttpResultInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        { provide: APP_PIPE, useFactory: validationPipe },
      ],
      exports: [...core.map((p) => (p as { provide: symbol | Function }).provide), SubscriptionRegistry, ProjectionRunners],
    };
  }
}
