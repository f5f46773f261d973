import { coalescingSuite } from './coalescing.shared.js';

coalescingSuite('postgres');
