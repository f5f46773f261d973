import { auditFeedSuite } from './audit-feed.shared.js';

auditFeedSuite('pglite');
