import { recoverySuite } from './recovery.shared.js';

recoverySuite('pglite');
