import { prefiltersSuite } from './prefilters.shared.js';

prefiltersSuite('pglite');
