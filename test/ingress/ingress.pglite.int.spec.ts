import { ingressSuite } from './ingress.shared.js';

ingressSuite('pglite');
