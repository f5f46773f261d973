import { Module } from '@nestjs/common';
import { ExecutionsController } from '../http/controllers/executions.controller.js';
import { ExecutionRecoveryController } from '../http/controllers/execution-recovery.controller.js';
import { claimableWaiterProvider } from '../http/controllers/claimable-waiter.js';
import { ClaimNextExecutionHandler } from '../../commands/claim-next-execution/claim-next-execution.handler.js';
import { ClaimExecutionHandler } from '../../commands/claim-execution/claim-execution.handler.js';
import { CompleteExecutionHandler } from '../../commands/complete-execution/complete-execution.handler.js';
import { SettleExecutionHandler } from '../../commands/settle-execution/settle-execution.handler.js';
import { RecoverExecutionHandler } from '../../commands/recover-execution/recover-execution.handler.js';
import { OperationsController } from '../http/controllers/operations.controller.js';
import { RecordOperationHandler } from '../../commands/causality/record-operation.handler.js';
import { DeliveryTimersService } from '../delivery-timers/delivery-timers.service.js';
import { FoldRelay } from '../runner/fold-relay.js';
import { RESOURCE_LANES } from '../../commands/shared/tokens.js';
import { ResourceLaneQueues } from '../pending-executions/resource-lanes.js';

/**
 * EX-2..EX-4, CA-2: claims, completions, settlements, recoveries, Operations, the timers that redeliver and
 * dead-letter, and the relay that tells HTTP-only processes of folds.
 */
@Module({
  controllers: [ExecutionsController, ExecutionRecoveryController, OperationsController],
  providers: [
    ClaimExecutionHandler,
    ClaimNextExecutionHandler,
    CompleteExecutionHandler,
    SettleExecutionHandler,
    RecoverExecutionHandler,
    RecordOperationHandler,
    claimableWaiterProvider,
    { provide: RESOURCE_LANES, useClass: ResourceLaneQueues },
    FoldRelay,
    DeliveryTimersService,
  ],
})
export class ExecutionsModule {}
