import { apiSecuritySuite, storeOutageSuite } from './api-security.shared.js';

apiSecuritySuite('pglite');
storeOutageSuite('pglite');
