import type { ExecutionEvent } from '../../../domain/execution/index.js';
import type { RecordedEvent } from '../../../domain/ports/event-store.js';

/** One entry of an execution's history: the event's type, time and the fields an operator needs (never a receipt). */
export type HistoryEntry = {
  type: string;
  at: string;
  position: number;
  generation: number;
  attempt: number | null;
} & Record<string, unknown>;

type Data<T extends ExecutionEvent['type']> = Extract<ExecutionEvent, { type: T }>['data'];

/** The fields that tell one event of the lifecycle from another (EX-2..EX-4). */
function detailOf(event: RecordedEvent): Record<string, unknown> {
  const type = event.type as ExecutionEvent['type'];
  switch (type) {
    case 'ExecutionClaimed': {
      const d = event.data as Data<'ExecutionClaimed'>;
      return { fence: d.fence, consumerId: d.consumerId };
    }
    case 'ExecutionCompleted': {
      const d = event.data as Data<'ExecutionCompleted'>;
      return { fence: d.fence, outcome: d.outcome, retryable: d.retryable ?? false, error: d.error ?? null };
    }
    case 'ExecutionRetryScheduled':
      return { nextAttemptAt: (event.data as Data<'ExecutionRetryScheduled'>).nextAttemptAt };
    case 'ExecutionRedelivered': {
      const d = event.data as Data<'ExecutionRedelivered'>;
      return { why: d.why, claimBy: d.claimBy };
    }
    case 'ExecutionDeadLettered': {
      const d = event.data as Data<'ExecutionDeadLettered'>;
      return { reason: d.reason, attempts: d.attempts, lastError: d.lastError };
    }
    case 'ExecutionSettled': {
      const d = event.data as Data<'ExecutionSettled'>;
      return { settlementId: d.settlementId, decision: d.decision, fence: d.fence };
    }
    case 'RecoveryRequested': {
      const d = event.data as Data<'RecoveryRequested'>;
      return { from: d.from, actor: d.actor, reason: d.reason };
    }
    case 'OperationRecorded': {
      const d = event.data as Data<'OperationRecorded'>;
      return { operationId: d.operationId, correlation: d.correlation, fence: d.fence };
    }
    default: {
      const _: never = type;
      return {};
    }
  }
}

export function historyOf(events: readonly RecordedEvent[]): HistoryEntry[] {
  return events.map((event) => {
    const d = event.data as ExecutionEvent['data'];
    return {
      type: event.type,
      at: d.at,
      position: event.position,
      generation: d.generation,
      attempt: d.attempt ?? null,
      ...detailOf(event),
    };
  });
}
