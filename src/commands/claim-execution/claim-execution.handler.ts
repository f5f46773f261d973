import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, RESOURCE_LANES } from '../shared/tokens.js';
import type { ResourceLanes } from '../../domain/ports/resource-lanes.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import type { Clock } from '../../domain/ports/clock.js';
import { type EventStore } from '../../domain/ports/event-store.js';
import { IllegalStateError } from '../../domain/shared/errors.js';
import { type CommandContext, metadataOf } from '../shared/command-context.js';
import { requestView, transitionExecution } from '../shared/execution-transition.js';
import { ClaimExecutionCommand, type ClaimResult } from './claim-execution.command.js';

@CommandHandler(ClaimExecutionCommand)
export class ClaimExecutionHandler implements ICommandHandler<ClaimExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
    @Inject(RESOURCE_LANES) private readonly lanes: ResourceLanes,
  ) {}

  execute({ context, executionId, consumerId }: ClaimExecutionCommand): Promise<ClaimResult> {
    return claimExecution(this.store, this.clock, context, executionId, consumerId, { lanes: this.lanes });
  }
}

/** The one claim (EX-2, AD-2), shared by `claim` and `claim-next` so both compare-and-set alike. */
export async function claimExecution(
  store: EventStore,
  clock: Clock,
  context: CommandContext,
  executionId: string,
  consumerId: string,
  /**
   * `missionHint`: the execution's Mission when the caller knows it (claim-next's candidate), its slots are read with
   * it. `lanes`: an explicit claim asks whose turn it is on the execution's resource lane (AD-5).
   */
  { missionHint, lanes }: { missionHint?: string; lanes?: ResourceLanes } = {},
): Promise<ClaimResult> {
  // The database's clock without a round trip of its own (SC-6): a claim is on every delivery's path.
  const at = (await clock.now()).toISOString();
  const { state } = await transitionExecution(
    store,
    context.tenant,
    { type: 'ClaimExecution', executionId, consumerId, at },
    metadataOf(context, executionId),
    { missionHint, lanes, fromMemory: !context.idempotency?.takenOver },
  );
  if (state.status !== 'claimed') throw new IllegalStateError('a claim that appended nothing');
  return {
    executionId,
    fence: state.fence,
    generation: state.generation,
    attempt: state.attempt,
    ...requestView(state.request),
  };
}
