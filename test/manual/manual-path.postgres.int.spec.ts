import { manualPathSuite } from './manual-path.shared.js';

manualPathSuite('postgres');
