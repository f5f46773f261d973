import { apiSecuritySuite, storeOutageSuite } from './api-security.shared.js';

apiSecuritySuite('postgres');
storeOutageSuite('postgres');
