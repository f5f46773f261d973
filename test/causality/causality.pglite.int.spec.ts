import { causalitySuite } from './causality.shared.js';

causalitySuite('pglite');
