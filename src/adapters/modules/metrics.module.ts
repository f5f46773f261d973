import { Global, Module } from '@nestjs/common';
import { MetricsController } from '../metrics/metrics.controller.js';
import { Metrics } from '../metrics/metrics.js';

/** Global, so the ingress, the HTTP hooks and the scheduler count into one registry (OP-4). */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics],
  exports: [Metrics],
})
export class MetricsModule {}
