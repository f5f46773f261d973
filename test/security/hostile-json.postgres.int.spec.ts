import { hostileJsonSuite } from './hostile-json.shared.js';

hostileJsonSuite('postgres');
