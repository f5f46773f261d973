import { manualPathSuite } from './manual-path.shared.js';

manualPathSuite('pglite');
