import type { DomainEvent } from '../shared/decider.js';
import type { CausalLink } from '../occurrence/occurrence-events.js';

/** CA-2: what a consumer says a later verified delivery will carry: the source and the value at its correlationPointer. */
export interface ExpectedCorrelation {
  sourceId: string;
  key: string;
}

/**
 * CA-2: the correlation index, one stream per (tenant, source, key), holding the Operation that reserved the key and
 * the causal link a correlated delivery gets. Appended with the `OperationRecorded` at "no stream", so the first
 * Operation owns the key and the ingress reads it from the log at acceptance (never from a lagging read model).
 */
export type CorrelationReserved = DomainEvent<
  'CorrelationReserved',
  {
    tenant: string;
    sourceId: string;
    key: string;
    operationId: string;
    executionId: string;
    occurrenceId: string;
    triggerId: string;
    child: CausalLink;
    at: string;
  }
>;
