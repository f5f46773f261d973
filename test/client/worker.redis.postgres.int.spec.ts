import { consumerClientSuite } from './worker.shared.js';

consumerClientSuite('postgres', 'redis');
