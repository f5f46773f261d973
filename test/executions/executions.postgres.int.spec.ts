import { executionsSuite } from './executions.shared.js';

executionsSuite('postgres');
