import { occurrenceFiltersSuite } from './occurrence-filters.shared.js';

occurrenceFiltersSuite('pglite');
