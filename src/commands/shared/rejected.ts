import type { Rejection } from '../../domain/shared/result.js';

/** Carries a domain rejection out of a handler; the problem filter renders it with its stable code. */
export class CommandRejected extends Error {
  override readonly name = 'CommandRejected';
  constructor(readonly rejection: Rejection) {
    super(rejection.detail ?? rejection.code);
  }
}
