import { consumerClientSuite } from './worker.shared.js';

consumerClientSuite('pglite', 'pull');
