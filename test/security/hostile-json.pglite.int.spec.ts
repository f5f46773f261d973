import { hostileJsonSuite } from './hostile-json.shared.js';

hostileJsonSuite('pglite');
