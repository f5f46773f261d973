import { ingressHostileSuite, ingressOutageSuite } from './ingress-hostile.shared.js';

ingressHostileSuite('postgres');
ingressOutageSuite('postgres');
