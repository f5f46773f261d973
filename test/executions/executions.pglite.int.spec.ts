import { executionsSuite } from './executions.shared.js';

executionsSuite('pglite');
