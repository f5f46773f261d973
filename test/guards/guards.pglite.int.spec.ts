import { guardsSuite } from './guards.shared.js';

guardsSuite('pglite');
