import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import { ProjectionRunners } from '../../src/adapters/runner/projection-runners.js';
import { LINEAGE_PROJECTION } from '../../src/projections/causality/lineage.projection.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Before the API refused it, an Operation could be recorded with a correlation that was an array: its event has no
 * sourceId or key. The lineage read model failed every batch on it for good (readiness held at 503 after a
 * restart). A log holding one still folds: that Operation links nothing, the ones after it are folded.
 */
describe('OP-3 CA-2 the lineage read model over a log with a malformed Operation (postgres)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('postgres', { autostart: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('OP-3 an Operation without a correlation is passed, the next one folded, and the checkpoint reaches the head', async () => {
    const operation = (operationId: string, correlation: unknown) => ({
      type: 'OperationRecorded',
      data: {
        tenant: 'acme',
        executionId: 'x-1',
        missionId: 'm-1',
        triggerId: 't-1',
        occurrenceId: 'o-1',
        fence: 1,
        operationId,
        correlation,
        child: { depth: 1, parent: { operationId }, ancestry: [] },
        at: '2026-12-07T10:00:00.000Z',
      },
      metadata: {},
    });
    await t.infra.store.append('execution-x-1', [operation('op-bad', [])], 'no_stream');
    await t.infra.store.append('execution-x-2', [operation('op-good', { sourceId: 'gh', key: 'k-1' })], 'no_stream');
    const runner = t.app.get(ProjectionRunners).get(LINEAGE_PROJECTION);
    await runner.catchUp();
    expect(await runner.hasReached(await t.infra.store.headPosition())).toBe(true);
    const { rows } = await t.sql.query<{ operation_id: string; source_id: string; correlation_key: string }>(
      'SELECT operation_id, source_id, correlation_key FROM rm_causal_operations ORDER BY position',
    );
    expect(rows).toEqual([{ operation_id: 'op-good', source_id: 'gh', correlation_key: 'k-1' }]);
    // AU-2: the verifier reports on such a log (its rebuild of the read models included), it does not crash.
    const report = await auditVerify(t.infra, {});
    expect(report.byRule).not.toHaveProperty('read_model_mismatch');
  });
});
