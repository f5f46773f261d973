import { causalityFixture, until } from '../causality/causality-fixture.js';
import type { TestApp } from '../support/app.js';

export interface CausalChain {
  triggers: Record<string, string>;
  sourceId: string;
  /** root (Trigger a) → Operation op1 → child (Trigger b) → Operation op2 → grandchild (Trigger c). */
  root: string;
  child: string;
  grandchild: string;
  op1: { operationId: string; executionId: string; key: string };
  op2: { operationId: string; executionId: string; key: string };
}

const withKey = (key: string) => ({ meta: { correlation: key } });

/**
 * CA-1/CA-2 over HTTP as a producer and a worker make it: a signed webhook source with a `correlationPointer`,
 * each admitted execution claimed and recording an Operation, and a signed delivery carrying that Operation's
 * correlation key becoming the linked next Occurrence. Waits until the lineage read model lists both descendants.
 */
export async function causalChain(t: TestApp): Promise<CausalChain> {
  const f = causalityFixture(() => t);
  const w = await f.world({ triggers: { a: {}, b: {}, c: {} } });
  const root = await w.deliver('a');
  const k1 = f.freshKey('ui1');
  const op1 = await f.actsWith(root, w.sourceId, k1);
  const child = await w.deliver('b', withKey(k1));
  const k2 = f.freshKey('ui2');
  const op2 = await f.actsWith(child, w.sourceId, k2);
  const grandchild = await w.deliver('c', withKey(k2));
  expect((await f.decided(grandchild)).status).toBe('admitted');
  await until(
    async () => {
      const read = await t.request({ method: 'GET', url: `/v1/operator/occurrences/${root}/lineage` });
      return read.body.descendants?.length === 2;
    },
    'both descendants in the lineage read model',
    30_000,
  );
  return {
    triggers: w.triggers,
    sourceId: w.sourceId,
    root,
    child,
    grandchild,
    op1: { operationId: op1.operationId, executionId: op1.executionId, key: k1 },
    op2: { operationId: op2.operationId, executionId: op2.executionId, key: k2 },
  };
}
