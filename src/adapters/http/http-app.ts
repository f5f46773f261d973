import 'reflect-metadata';
import { ConsoleLogger, type DynamicModule, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { ReveilleConfig } from '../config/config.js';
import type { HttpTimeouts } from '../config/http.section.js';
import { CONFIG } from '../config/config.token.js';
import { STATUS_OVERRIDE } from './http-result.js';
import { serverTimeoutOptions } from './server-timeouts.js';
import { registerJsonBounds } from './json-bounds.hook.js';
import { IngressPipeline } from '../ingress/ingress-pipeline.js';
import { registerIngressRoute } from '../ingress/ingress.route.js';
import { SourceCache } from '../ingress/source-cache.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { Metrics } from '../metrics/metrics.js';

export interface AppOptions {
  logger?: LoggerService | false;
  /** false: background subscriptions (projections, processors) are driven by hand (tests). */
  startSubscriptions?: boolean;
  /** The Swagger UI's static assets load through a dynamic import jest's ESM VM cannot follow; tests use the JSON document. */
  docsUi?: boolean;
}

const COMMAND_BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP application around the composition root's module (serve, tests and benchmarks share this). */
export async function createHttpApp(
  root: DynamicModule,
  timeouts: HttpTimeouts,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: COMMAND_BODY_LIMIT,
    trustProxy: false,
    ...serverTimeoutOptions(timeouts),
  });
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: options.logger ?? new ConsoleLogger({ json: true }),
    abortOnError: false,
  });
  if (options.startSubscriptions === false) app.get(SubscriptionRegistry).disableAutostart();
  const fastify = app.getHttpAdapter().getInstance();
  const metrics = app.get(Metrics);
  // Route templates only, so no tenant or resource id becomes a label (OP-4).
  fastify.addHook('onResponse', async (request, reply) =>
    metrics.httpAnswered(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    ),
  );
  registerJsonBounds(fastify, app.get<symbol, ReveilleConfig>(CONFIG).maxJsonDepth);
  registerIngressRoute(fastify, {
    pipeline: app.get(IngressPipeline),
    sources: app.get(SourceCache),
    answered: (status) => metrics.ingressAnswered(status),
    globalRate: app.get<symbol, ReveilleConfig>(CONFIG).ingressRate,
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    const status = (request as unknown as Record<symbol, number | undefined>)[STATUS_OVERRIDE];
    if (status !== undefined) reply.code(status);
    return payload;
  });
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Reveille')
      .setDescription('Durable trigger/occurrence runtime. Errors are application/problem+json with a stable `code`.')
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
      .build(),
  );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    swaggerUiEnabled: options.docsUi ?? true,
  });
  await app.init();
  await fastify.ready();
  return app;
}
