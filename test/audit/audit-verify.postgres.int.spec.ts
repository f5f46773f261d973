import { auditVerifySuite } from './audit-verify.shared.js';

auditVerifySuite('postgres');
