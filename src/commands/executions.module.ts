import { Module } from '@nestjs/common';
import { ExecutionsController } from '../adapters/http/controllers/executions.controller.js';
import { ClaimExecutionHandler } from './claim-execution/claim-execution.handler.js';
import { CompleteExecutionHandler } from './complete-execution/complete-execution.handler.js';
import { SettleExecutionHandler } from './settle-execution/settle-execution.handler.js';

@Module({ controllers: [ExecutionsController], providers: [ClaimExecutionHandler, CompleteExecutionHandler, SettleExecutionHandler] })
export class ExecutionsModule {}
