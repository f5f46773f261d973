import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { CorrelationReserved } from '../../domain/causality/correlation-events.js';
import { rootLink } from '../../domain/causality/causal-link.js';
import { occurrenceIdOf, type OperationRecorded } from '../../domain/execution/index.js';
import type { CausalLink, OccurrenceObserved } from '../../domain/occurrence/occurrence-events.js';
import type { EventMetadata, EventStore, StreamAppend } from '../../domain/ports/event-store.js';
import { reject } from '../../domain/shared/result.js';
import { correlationStream, occurrenceStream } from '../../domain/shared/ids.js';
import { metadataOf } from '../shared/command-context.js';
import { accepted, appendOf } from '../shared/write-kernel.js';
import { transitionExecution } from '../shared/execution-transition.js';
import { EVENT_STORE } from '../shared/tokens.js';
import { TrustedClock } from '../shared/trusted-clock.js';
import { type RecordedOperation, RecordOperationCommand } from './record-operation.command.js';

/**
 * CA-2: `OperationRecorded` on the execution stream (fenced like a completion) and, in the same all-or-nothing
 * append, `CorrelationReserved` on the key's correlation stream at "no stream": the first Operation owns a key, and a
 * later one naming it is refused (409 `correlation_taken`) instead of silently re-pointing a causal link.
 */
@CommandHandler(RecordOperationCommand)
export class RecordOperationHandler implements ICommandHandler<RecordOperationCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(TrustedClock) private readonly clock: TrustedClock,
  ) {}

  async execute({ context, executionId, fence, operationId, correlation }: RecordOperationCommand) {
    const origin = await this.originOf(context.tenant, executionId);
    const at = (await this.clock.now()).toISOString();
    const metadata = metadataOf(context, executionId);
    const done = await transitionExecution(
      this.store,
      context.tenant,
      { type: 'RecordOperation', executionId, fence, operationId, correlation, origin, at },
      metadata,
      { alongside: (events) => this.reserve(context.tenant, events, metadata) },
    );
    return { operationId, position: done.position } satisfies RecordedOperation;
  }

  /** The causal link of the execution's Occurrence, as observed (immutable, CA-1); a root when not found here. */
  private async originOf(tenant: string, executionId: string): Promise<CausalLink> {
    const occurrenceId = occurrenceIdOf(executionId);
    if (occurrenceId === null) return rootLink(); // the transition answers 404
    const [observed] = await this.store.readStream(occurrenceStream(occurrenceId), { fromRevision: 0, maxCount: 1 });
    const data = observed?.type === 'OccurrenceObserved' ? (observed.data as OccurrenceObserved['data']) : null;
    return data && data.tenant === tenant ? data.causal : rootLink();
  }

  private async reserve(
    tenant: string,
    events: readonly { type: string; data: unknown }[],
    metadata: EventMetadata,
  ): Promise<StreamAppend[]> {
    const recorded = events.find((e): e is OperationRecorded => e.type === 'OperationRecorded');
    if (!recorded) return [];
    const { operationId, correlation, executionId, occurrenceId, triggerId, child, at } = recorded.data;
    const streamId = correlationStream(tenant, correlation.sourceId, correlation.key);
    const [owner] = await this.store.readStream(streamId, { fromRevision: 0, maxCount: 1 });
    if (owner) {
      const held = owner.data as CorrelationReserved['data'];
      accepted(
        reject('correlation_taken', {
          detail: `operation ${held.operationId} already expects this correlation key from source ${correlation.sourceId}`,
        }),
      );
    }
    const reserved: CorrelationReserved = {
      type: 'CorrelationReserved',
      data: {
        tenant,
        sourceId: correlation.sourceId,
        key: correlation.key,
        operationId,
        executionId,
        occurrenceId,
        triggerId,
        child,
        at,
      },
    };
    return [appendOf(streamId, [reserved], metadata, { revision: -1 })];
  }
}
