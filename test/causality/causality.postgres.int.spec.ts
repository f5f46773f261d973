import { causalitySuite } from './causality.shared.js';

causalitySuite('postgres');
