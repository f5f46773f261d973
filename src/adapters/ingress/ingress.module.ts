import { Module } from '@nestjs/common';
import { TrustedClock } from '../clock/trusted-clock.js';
import { Backpressure } from './backpressure.js';
import { IngressAudit } from './ingress-audit.js';
import { IngressPipeline } from './ingress-pipeline.js';
import { ReplaySweeper } from './replay-sweeper.js';
import { SourceCache } from './source-cache.js';

/** Webhook ingress; its route is registered on Fastify directly (see registerIngressRoute). */
@Module({
  providers: [TrustedClock, IngressAudit, Backpressure, SourceCache, IngressPipeline, ReplaySweeper],
  exports: [IngressPipeline, SourceCache, IngressAudit, TrustedClock],
})
export class IngressModule {}
