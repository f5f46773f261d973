import { forgedCursorsSuite } from './forged-cursors.shared.js';

forgedCursorsSuite('pglite');
