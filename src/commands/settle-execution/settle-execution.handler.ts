import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { settlementOf } from '../../domain/execution/index.js';
import { IllegalStateError } from '../../domain/shared/errors.js';
import { metadataOf } from '../shared/command-context.js';
import { transitionExecution } from '../shared/execution-transition.js';
import { SettleExecutionCommand, type SettlementResult } from './settle-execution.command.js';

@CommandHandler(SettleExecutionCommand)
export class SettleExecutionHandler implements ICommandHandler<SettleExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  async execute({ context, executionId, settlementId }: SettleExecutionCommand): Promise<SettlementResult> {
    const at = (await this.clock.now()).toISOString();
    const { state, position } = await transitionExecution(
      this.store,
      context.tenant,
      { type: 'SettleExecution', executionId, settlementId, at },
      metadataOf(context, executionId),
    );
    const settled = settlementOf(state);
    if (settled === null) throw new IllegalStateError('a settlement that left the execution open');
    return { executionId, ...settled, position };
  }
}
