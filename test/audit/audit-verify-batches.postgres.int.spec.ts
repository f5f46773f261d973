import { auditVerifyBatchesSuite } from './audit-verify-batches.shared.js';

auditVerifyBatchesSuite('postgres');
