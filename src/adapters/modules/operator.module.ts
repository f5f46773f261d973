import { Module } from '@nestjs/common';
import { ExecutionViewsController } from '../http/controllers/execution-views.controller.js';
import { OperatorController } from '../http/controllers/operator.controller.js';

/** The operator read API (OP-1, OP-2): Trigger health, Occurrences and executions (EX-4, EX-5). */
@Module({ controllers: [OperatorController, ExecutionViewsController] })
export class OperatorModule {}
