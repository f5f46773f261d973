import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { type DynamicModule, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { ReveilleConfig } from '../config/config.js';
import type { HttpSettings } from '../config/http.section.js';
import { CONFIG } from '../config/config.token.js';
import { STATUS_OVERRIDE } from './http-result.js';
import { serverTimeoutOptions } from './server-timeouts.js';
import { completeDocument } from './openapi/complete-document.js';
import { ingressPaths } from '../ingress/ingress.openapi.js';
import { registerJsonBounds } from './json-bounds.hook.js';
import { parseJsonBody, refuseNonJsonBody } from './json-body.js';
import { registerRequestLog } from './logging/request-log.hook.js';
import { ServiceLogger } from './logging/service-logger.js';
import { IngressPipeline } from '../ingress/ingress-pipeline.js';
import { registerIngressRoute } from '../ingress/ingress.route.js';
import { SourceCache } from '../ingress/source-cache.js';
import { IngressCounts } from '../ingress/ingress-counts.js';
import { SubscriptionRegistry } from '../runner/subscription-registry.js';
import { Metrics } from '../metrics/metrics.js';
import { registerDashboard } from './ui/dashboard.route.js';
import { frameworkErrorProblem, MAX_PARAM_LENGTH } from './problems/client-error.js';
import { renderProblem } from './problems/problem-details.filter.js';

export interface AppOptions {
  logger?: LoggerService | false;
  /** false: background subscriptions (projections, processors) are driven by hand (tests). */
  startSubscriptions?: boolean;
  /** The Swagger UI's static assets load through a dynamic import jest's ESM VM cannot follow; tests use the JSON document. */
  docsUi?: boolean;
}

const COMMAND_BODY_LIMIT = 1024 * 1024;

/** Unique across restarts and processes, cheap per request; never taken from the sender (hostile input). */
function requestIds(): () => string {
  const boot = randomBytes(4).toString('hex');
  let next = 0;
  return () => `${boot}-${(next++).toString(36)}`;
}

/** Builds the HTTP application around the composition root's module (serve, tests and benchmarks share this). */
export async function createHttpApp(
  root: DynamicModule,
  { timeouts, logLevel }: Pick<HttpSettings, 'timeouts' | 'logLevel'>,
  options: AppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: COMMAND_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const problem = frameworkErrorProblem(error);
      void reply.code(problem.status).header('content-type', 'application/problem+json').send(renderProblem(problem));
    },
    trustProxy: false,
    genReqId: requestIds(),
    ...serverTimeoutOptions(timeouts),
  });
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: options.logger ?? new ServiceLogger(logLevel),
    abortOnError: false,
  });
  // Before app.init(), which would otherwise register Nest's default JSON parser (see json-body.ts for why not).
  app.useBodyParser('application/json', { bodyLimit: COMMAND_BODY_LIMIT }, parseJsonBody);
  // Every other media type, and a body without one, is refused 400 (json-body.ts); registered through Nest, so
  // that it adds no form parser of its own at init. Fastify's built-in text/plain parser goes too. The ingress
  // route replaces all of them with its own in its scope.
  app.useBodyParser('*', { bodyLimit: COMMAND_BODY_LIMIT }, refuseNonJsonBody);
  app.getHttpAdapter().getInstance().removeContentTypeParser('text/plain');
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
  registerRequestLog(fastify);
  registerJsonBounds(fastify, app.get<symbol, ReveilleConfig>(CONFIG).maxJsonDepth);
  registerIngressRoute(fastify, {
    pipeline: app.get(IngressPipeline),
    sources: app.get(SourceCache),
    answered: (status) => metrics.ingressAnswered(status),
    counts: app.get(IngressCounts),
    globalRate: app.get<symbol, ReveilleConfig>(CONFIG).ingressRate,
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    const status = (request as unknown as Record<symbol, number | undefined>)[STATUS_OVERRIDE];
    if (status !== undefined) reply.code(status);
    return payload;
  });
  // Built on its first request, not at start: scanning every route cost each start ≈ 0.1–0.25 s of CPU.
  const document = () =>
    completeDocument(
      SwaggerModule.createDocument(
        app,
        new DocumentBuilder()
          .setTitle('Reveille')
          .setDescription(
            'Durable trigger/occurrence runtime. Errors are application/problem+json with a stable `code`.',
          )
          .setVersion('1')
          .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
          .build(),
      ),
      ingressPaths,
    );
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    swaggerUiEnabled: options.docsUi ?? true,
  });
  await registerDashboard(fastify);
  await app.init();
  // Tests drive subscriptions by hand with catchUp() (startSubscriptions: false).
  if (options.startSubscriptions !== false) app.get(SubscriptionRegistry).startAll();
  await fastify.ready();
  return app;
}
