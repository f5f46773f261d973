import type { Route } from '../router.js';
import { deadLettersPage } from './dead-letters-page.js';
import { healthPage } from './health-page.js';

/** The first path segment names the page; `arity` is how many more segments (ids) it takes. */
export const pages: Record<string, { arity: number | 'any'; render: (route: Route) => Promise<Node> }> = {
  health: { arity: 0, render: healthPage },
  'dead-letters': { arity: 0, render: deadLettersPage },
};
