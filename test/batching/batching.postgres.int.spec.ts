import { batchingSuite, batchRestartSuite } from './batching.shared.js';

batchingSuite('postgres');
batchRestartSuite('postgres');
