import { occurrencesProjection } from './occurrences/occurrences.projection.js';
import type { Projection } from './runner/projection.js';
import { sourceBindingsProjection } from './source-bindings/source-bindings.projection.js';
import { schedulesProjection } from './schedules/schedules.projection.js';
import { triggerHealthProjection } from './trigger-health/trigger-health.projection.js';

/** Every read model of the deployment; `reveille projections rebuild` works over this list. */
export const projections: Projection[] = [occurrencesProjection, triggerHealthProjection, sourceBindingsProjection, schedulesProjection];
