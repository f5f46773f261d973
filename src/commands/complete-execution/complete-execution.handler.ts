import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { badRequest } from '../../domain/shared/errors.js';
import { executionStatusOf } from '../../domain/execution/index.js';
import { IllegalStateError } from '../../domain/shared/errors.js';
import { metadataOf } from '../shared/command-context.js';
import { transitionExecution } from '../shared/execution-transition.js';
import { CompleteExecutionCommand, type CompletionResult } from './complete-execution.command.js';

const MAX_RECEIPT_BYTES = 16 * 1024;

@CommandHandler(CompleteExecutionCommand)
export class CompleteExecutionHandler implements ICommandHandler<CompleteExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  async execute({
    context,
    executionId,
    fence,
    outcome,
    receipt,
    retryable,
    error,
  }: CompleteExecutionCommand): Promise<CompletionResult> {
    if (Buffer.byteLength(JSON.stringify(receipt ?? null), 'utf8') > MAX_RECEIPT_BYTES) {
      throw badRequest('The request is malformed.', [
        { pointer: '/receipt', message: `receipt must be at most ${MAX_RECEIPT_BYTES} bytes as JSON` },
      ]);
    }
    const at = (await this.clock.now()).toISOString();
    const done = await transitionExecution(
      this.store,
      context.tenant,
      { type: 'CompleteExecution', executionId, fence, outcome, retryable, error, receipt: receipt ?? null, at },
      metadataOf(context, executionId),
      // A retry that took the key over may find its own completion in the log: it reads
      { fromMemory: !context.idempotency?.takenOver },
    );
    const completion = done.state.lastCompletion;
    if (completion === null) throw new IllegalStateError('a completion that recorded nothing');
    return {
      executionId,
      status: executionStatusOf(done.state),
      outcome: completion.outcome,
      fence: completion.fence,
      position: done.position,
    };
  }
}
