import { ingressHostileSuite, ingressOutageSuite } from './ingress-hostile.shared.js';

ingressHostileSuite('pglite');
ingressOutageSuite('pglite');
