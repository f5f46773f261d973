import { batchingSuite, batchRestartSuite } from './batching.shared.js';

batchingSuite('pglite');
batchRestartSuite('pglite');
