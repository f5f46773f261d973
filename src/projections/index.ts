import type { Projection } from './runner/projection.js';

/** Every read model of the deployment; `reveille projections rebuild` works over this list. */
export const projections: Projection[] = [];
