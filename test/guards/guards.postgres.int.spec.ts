import { guardsSuite } from './guards.shared.js';

guardsSuite('postgres');
