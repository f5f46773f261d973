import type { CausalLink } from '../occurrence/occurrence-events.js';
import { MAX_OPERATIONS_PER_EXECUTION, type ExecutionEvent } from './index.js';
import { AT, claimed, completed, life, spec } from './execution.fixtures.js';

const root: CausalLink = { parentId: null, depth: 0, ancestry: [] };
const correlation = (key: string) => ({ sourceId: 's-1', key });
const record = (fence: number, operationId = 'op-1', key = 'k-1', origin: CausalLink = root) => ({
  type: 'RecordOperation' as const,
  executionId: 'e-1',
  fence,
  operationId,
  correlation: correlation(key),
  origin,
  at: AT,
});
const recorded = (operationId = 'op-1', key = 'k-1', child?: CausalLink): ExecutionEvent => ({
  type: 'OperationRecorded',
  data: {
    ...life(),
    fence: 1,
    operationId,
    correlation: correlation(key),
    occurrenceId: 'o-1',
    child: child ?? {
      parentId: operationId,
      depth: 1,
      ancestry: [
        { occurrenceId: 'o-1', triggerId: 't-1' },
        { operationId, triggerId: 't-1' },
      ],
    },
  },
});

describe('CA-2 Operations on the execution stream', () => {
  it('CA-2 the claim holder records an Operation carrying the child link: its Occurrence’s chain, itself, depth + 1', () => {
    spec.given([claimed()]).when(record(1)).then([recorded()]);
    const origin: CausalLink = {
      parentId: 'op-0',
      depth: 1,
      ancestry: [
        { occurrenceId: 'o-0', triggerId: 't-0' },
        { operationId: 'op-0', triggerId: 't-0' },
      ],
    };
    spec
      .given([claimed()])
      .when(record(1, 'op-1', 'k-1', origin))
      .then([
        recorded('op-1', 'k-1', {
          parentId: 'op-1',
          depth: 2,
          ancestry: [
            { occurrenceId: 'o-0', triggerId: 't-0' },
            { operationId: 'op-0', triggerId: 't-0' },
            { occurrenceId: 'o-1', triggerId: 't-1' },
            { operationId: 'op-1', triggerId: 't-1' },
          ],
        }),
      ]);
  });

  it('CA-2 a stale fence, an unclaimed or a completed execution is fence_mismatch', () => {
    spec.given([claimed()]).when(record(2)).then('fence_mismatch');
    spec.given([]).when(record(1)).then('fence_mismatch');
    spec.given([claimed(), completed()]).when(record(1, 'op-9')).then('fence_mismatch');
  });

  it('CA-2 the same Operation again changes nothing; re-pointing it is operation_conflict', () => {
    spec.given([claimed(), recorded()]).when(record(1)).then([]);
    spec
      .given([claimed(), recorded()])
      .when(record(1, 'op-1', 'k-2'))
      .then('operation_conflict');
  });

  it('CA-2 an execution records a bounded number of Operations', () => {
    const many = Array.from({ length: MAX_OPERATIONS_PER_EXECUTION }, (_, i) => recorded(`op-${i}`, `k-${i}`));
    spec
      .given([claimed(), ...many])
      .when(record(1, 'op-x', 'k-x'))
      .then('operation_limit');
  });
});
