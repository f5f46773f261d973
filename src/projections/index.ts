import { lineageProjection } from './causality/lineage.projection.js';
import { coalescingProjection } from './coalescing/coalescing.projection.js';
import { executionsProjection } from './executions/executions.projection.js';
import { OCCURRENCES_PROJECTION, occurrencesProjection } from './occurrences/occurrences.projection.js';
import { pendingExecutionsProjection } from './pending-executions/pending-executions.projection.js';
import type { Projection } from './runner/projection.js';
import { foldedTogether } from './runner/projection-group.js';
import { sourceBindingsProjection } from './source-bindings/source-bindings.projection.js';
import { schedulesProjection } from './scheduler/schedules.projection.js';
import { pollsProjection } from './poll/polls.projection.js';
import { batchesProjection } from './batches/batches.projection.js';
import { subscriptionsProjection } from './subscriptions/subscriptions.projection.js';
import { triggerHealthProjection } from './trigger-health/trigger-health.projection.js';

/**
 * Trigger health counts what the Occurrence explorer records (first observations, first decisions),
 * so it folds in the explorer's transaction, just before it, instead of keeping a copy of its rows.
 */
export const occurrenceViews = foldedTogether(OCCURRENCES_PROJECTION, [triggerHealthProjection, occurrencesProjection]);

/** Every read model of the deployment; `reveille projections rebuild` works over this list. */
export const projections: Projection[] = [
  occurrenceViews,
  sourceBindingsProjection,
  schedulesProjection,
  pendingExecutionsProjection,
  executionsProjection,
  pollsProjection,
  batchesProjection,
  lineageProjection,
  subscriptionsProjection,
  coalescingProjection,
];

/** The projection that folds `name`: itself, or the group it folds in. */
export const foldingOf = (name: string): Projection | undefined =>
  projections.find((p) => p.name === name || p.members?.some((m) => m.name === name));
