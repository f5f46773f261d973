import { Module } from '@nestjs/common';
import { OperatorController } from '../http/controllers/operator.controller.js';

/** The operator read API (OP-1, OP-2) over the `occurrences` and `trigger-health` read models. */
@Module({ controllers: [OperatorController] })
export class OperatorModule {}
