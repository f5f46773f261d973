import { pollSecretSuite } from './poll-secret.shared.js';

pollSecretSuite('pglite');
