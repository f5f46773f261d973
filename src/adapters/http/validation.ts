import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { type FieldError, problems } from './problems/problem.js';

/** class-validator failures as 400 BAD_REQUEST with JSON pointers, like every other validation error. */
export function validationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: false,
    forbidUnknownValues: false,
    exceptionFactory: (errors) => problems.badRequest(flatten(errors, '')),
  });
}

function flatten(errors: ValidationError[], prefix: string): FieldError[] {
  return errors.flatMap((error) => {
    const pointer = `${prefix}/${error.property}`;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ pointer, message }));
    return [...own, ...flatten(error.children ?? [], pointer)];
  });
}
