import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import type { ReveilleConfig } from './adapters/config/config.js';
import { CONFIG } from './adapters/config/config.token.js';
import { AppendSignal } from './projections/runner/append-signal.js';
import { TrustedClock } from './commands/shared/trusted-clock.js';
import { EVENT_STORE } from './commands/shared/tokens.js';
import type { Infrastructure } from './adapters/eventstore/infrastructure.js';
import { SQL_CLIENT } from './projections/sql-client.js';
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
import { MetricsModule } from './adapters/modules/metrics.module.js';
import { ProjectionRunners } from './adapters/runner/projection-runners.js';
import { SubscriptionRegistry } from './adapters/runner/subscription-registry.js';
import { StartupReadiness } from './adapters/runner/startup-readiness.js';
import { MissionsModule } from './adapters/modules/missions.module.js';
import { TriggersModule } from './adapters/modules/triggers.module.js';
import { SourcesModule } from './adapters/modules/sources.module.js';
import { OperatorModule } from './adapters/modules/operator.module.js';
import { SchedulesModule } from './adapters/modules/schedules.module.js';
import { IngressModule } from './adapters/ingress/ingress.module.js';
import { ExecutionsModule } from './adapters/modules/executions.module.js';
import { PollsModule } from './adapters/modules/polls.module.js';
import { SubscriptionsModule } from './adapters/modules/subscriptions.module.js';
import { AuditModule } from './adapters/modules/audit.module.js';
import { WakeupModule } from './adapters/wakeup/wakeup.module.js';
import { type AppOptions, createHttpApp } from './adapters/http/http-app.js';
import { LifecycleLog } from './adapters/http/logging/lifecycle-log.js';

export { allMigrations } from './adapters/eventstore/all-migrations.js';

export const featureModules: Type[] = [
  MissionsModule,
  TriggersModule,
  OperatorModule,
  SourcesModule,
  IngressModule,
  SchedulesModule,
  ExecutionsModule,
  PollsModule,
  SubscriptionsModule,
  WakeupModule,
  MetricsModule,
  AuditModule,
];

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
      // Readiness polls answer with their reasons; a log line per 503 poll while starting is noise (terminus logs each).
      imports: [CqrsModule.forRoot(), TerminusModule.forRoot({ logger: false }), ...featureModules],
      controllers: [HealthController, ...(jwks ? [DevJwksController] : [])],
      providers: [
        ...core,
        SubscriptionRegistry,
        ProjectionRunners,
        StartupReadiness,
        IdempotencySweeper,
        LifecycleLog,
        { provide: APP_GUARD, useClass: AuthGuard },
        // Registration order is nesting order: the result interceptor must see what idempotency returns.
        { provide: APP_INTERCEPTOR, useClass: HttpResultInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        { provide: APP_PIPE, useFactory: validationPipe },
      ],
      exports: [
        ...core.map((p) => (p as { provide: symbol | Function }).provide),
        SubscriptionRegistry,
        ProjectionRunners,
      ],
    };
  }
}

export async function createApp(
  config: ReveilleConfig,
  infra: Infrastructure,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  return createHttpApp(await AppModule.forRoot(config, infra), config, options);
}
