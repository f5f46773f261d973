import { claimNextSuite } from './claim-next.shared.js';

claimNextSuite('pglite');
