import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Backpressure } from './backpressure.js';
import { IngressAudit } from './ingress-audit.js';
import { IngressCounts } from './ingress-counts.js';
import { IngressPipeline } from './ingress-pipeline.js';
import { ReplaySweeper } from './replay-sweeper.js';
import { SourceCache } from './source-cache.js';
import { DefinitionFreshness } from './definition-freshness.js';
import { DefinitionsAnnounced } from './definitions-announced.interceptor.js';

/** Webhook ingress; its route is registered on Fastify directly (see registerIngressRoute). */
@Module({
  providers: [
    IngressAudit,
    IngressCounts,
    Backpressure,
    SourceCache,
    DefinitionFreshness,
    IngressPipeline,
    ReplaySweeper,
    { provide: APP_INTERCEPTOR, useClass: DefinitionsAnnounced },
  ],
  exports: [IngressPipeline, SourceCache, IngressAudit, IngressCounts],
})
export class IngressModule {}
