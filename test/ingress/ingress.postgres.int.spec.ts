import { ingressSuite } from './ingress.shared.js';

ingressSuite('postgres');
