import type { Rejection } from '../../../domain/shared/result.js';
import { Problem } from './problem.js';

const STATUS: Record<string, number> = {
  BAD_REQUEST: 400,
  invalid_definition: 422,
  authority_widening: 422,
  capability_unsupported: 422,
  mission_not_found: 422,
  source_not_found: 422,
  revision_conflict: 409,
  mission_terminal: 409,
  trigger_deleted: 409,
  not_found: 404,
  already_claimed: 409,
  execution_completed: 409,
  execution_noncommitted: 409,
  fence_mismatch: 409,
  concurrency_limit: 409,
  execution_dead_lettered: 409,
  not_pending: 409,
  settlement_required: 409,
  recovery_refused: 409,
  claim_refused: 409,
  lane_busy: 409,
  not_recoverable: 409,
  operation_conflict: 409,
  operation_limit: 409,
  correlation_taken: 409,
  subscription_conflict: 409,
  subscription_limit: 409,
};

const TITLES: Record<string, string> = {
  not_found: 'Not found',
  BAD_REQUEST: 'Bad request',
  trigger_not_manual: 'Not a manual Trigger',
  trigger_not_poll: 'Not a poll Trigger',
  payload_conflict: 'Payload conflict',
  invalid_definition: 'Invalid definition',
  authority_widening: 'Authority wider than the Mission grants',
  capability_unsupported: 'Capability not supported by this deployment',
  revision_conflict: 'Revision conflict',
  mission_terminal: 'Mission is terminal',
  mission_not_found: 'Mission not found',
  already_claimed: 'Execution already claimed',
  execution_completed: 'Execution already completed',
  execution_noncommitted: 'Execution settled as noncommitted',
  fence_mismatch: 'Fence does not match the current claim',
  // The limit may be the Mission's or a lower one of the Trigger's (`constraints.maxConcurrent`): the title names neither
  concurrency_limit: 'Concurrent executions at their limit',
  execution_dead_lettered: 'Execution dead-lettered',
  not_pending: "Execution waits for a retry's backoff",
  settlement_required: 'The claimed execution must be settled first',
  recovery_refused: 'Authority refuses the recovery',
  claim_refused: 'The Mission runs no work now',
  lane_busy: 'Another execution of the resource lane goes first',
  not_recoverable: 'Execution is not in a recoverable state',
  operation_conflict: 'Operation recorded with another correlation',
  operation_limit: 'The execution recorded its maximum of operations',
  correlation_taken: 'Another Operation expects this correlation key',
  subscription_conflict: 'The execution already registered this subscription',
  subscription_limit: 'Too many active subscriptions on this target',
};

/** Domain rejections keep their code as the problem's stable `code`. */
export function rejectionProblem(rejection: Rejection): Problem {
  const extras: Record<string, unknown> = {};
  if (rejection.errors) extras.errors = rejection.errors;
  if (rejection.currentRevision !== undefined) extras.currentRevision = rejection.currentRevision;
  if (rejection.reason !== undefined) extras.reason = rejection.reason;
  return new Problem(
    STATUS[rejection.code] ?? 409,
    rejection.code,
    TITLES[rejection.code] ?? rejection.code.replace(/_/g, ' '),
    rejection.detail ?? rejection.errors?.[0]?.message,
    extras,
  );
}
