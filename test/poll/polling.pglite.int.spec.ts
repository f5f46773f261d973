import { pollingSuite } from './polling.shared.js';

pollingSuite('pglite');
