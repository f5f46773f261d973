import type { Route } from '../router.js';
import { auditPage } from './audit-page.js';
import { deadLettersPage } from './dead-letters-page.js';
import { executionPage, executionsPage } from './executions-page.js';
import { healthPage } from './health-page.js';
import { occurrencePage } from './occurrence-page.js';
import { triggerPage } from './trigger-page.js';

type Render = (route: Route) => Promise<Node>;

/** The first path segment names the page; the rest (ids) chooses among its renderers by count. */
export const pages: Record<string, Record<number, Render>> = {
  health: { 0: healthPage },
  triggers: { 1: triggerPage },
  occurrences: { 1: occurrencePage },
  executions: { 0: executionsPage, 1: executionPage },
  'dead-letters': { 0: deadLettersPage },
  audit: { 0: auditPage, 2: auditPage },
};
