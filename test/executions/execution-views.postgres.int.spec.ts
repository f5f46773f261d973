import { executionViewsSuite } from './execution-views.shared.js';

executionViewsSuite('postgres');
