import { Module } from '@nestjs/common';
import { ExecutionViewsController } from '../http/controllers/execution-views.controller.js';
import { LineageController } from '../http/controllers/lineage.controller.js';
import { OperatorController } from '../http/controllers/operator.controller.js';
import { SourceIngressController } from '../http/controllers/source-ingress.controller.js';
import { IngressModule } from '../ingress/ingress.module.js';

/** The operator read API (OP-1, OP-2): Trigger health, Occurrences and their lineage, executions (EX-4, EX-5), source ingress. */
@Module({
  imports: [IngressModule],
  controllers: [OperatorController, ExecutionViewsController, SourceIngressController, LineageController],
})
export class OperatorModule {}
