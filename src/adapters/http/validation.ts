import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { DefinitionEnvelopeDto, ENVELOPE_MEMBERS } from '../../commands/shared/definition-envelope.dto.js';
import { isRecord } from '../../domain/shared/fields.js';
import { pointerTo } from '../../domain/shared/json-pointer.js';
import { type FieldError, NOT_AN_OBJECT, problems } from './problems/problem.js';

/**
 * class-validator failures as 400 BAD_REQUEST with JSON pointers, like every other validation error.
 *
 * A definition body (Mission, Source, Trigger) reaches its handler as it was parsed: Nest's pipe deletes members
 * named `constructor` or `prototype` and class-transformer drops those that shadow an Object.prototype method
 * (`toString`, `valueOf`, …), so the domain's unknown-member check never saw them and they were accepted
 * silently where `foo` is a 422. Only the envelope (expectedRevision, reason) is typed here, on a copy.
 */
class RequestValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return super.transform(value, metadata);
    // An absent body is an empty command (e.g. POST …/keys); JSON that is not an object is refused on every route.
    if (value !== undefined && !isRecord(value)) throw problems.badRequest([NOT_AN_OBJECT]);
    // Before the pipe strips `constructor` members and class-transformer drops `toString` and its kind.
    const unknown = unknownMembers(value, metadata.metatype);
    if (unknown.length > 0) throw problems.invalidDefinition(unknown);
    if (!isDefinitionEnvelope(metadata.metatype)) return super.transform(value, metadata);
    const body = value ?? {};
    const envelope = Object.fromEntries(
      ENVELOPE_MEMBERS.filter((member) => Object.hasOwn(body, member)).map((member) => [member, body[member]]),
    );
    await super.transform(envelope, metadata);
    return body;
  }
}

/**
 * A DTO may name every member its body holds (`static readonly members`), as a Source key's does: a misspelt member
 * (`keyid`) would otherwise fall back to a default silently. Refused like a definition's: 422 invalid_definition.
 */
function unknownMembers(value: Record<string, unknown> | undefined, metatype: ArgumentMetadata['metatype']) {
  const members = (metatype as { members?: readonly string[] } | undefined)?.members;
  if (!members || value === undefined) return [];
  return Object.keys(value)
    .filter((key) => !members.includes(key))
    .map((key) => ({ pointer: pointerTo('', key), message: `unknown member "${key}"` }));
}

function isDefinitionEnvelope(metatype: ArgumentMetadata['metatype']): boolean {
  return metatype === DefinitionEnvelopeDto || metatype?.prototype instanceof DefinitionEnvelopeDto;
}

export function validationPipe(): ValidationPipe {
  return new RequestValidationPipe({
    transform: true,
    whitelist: false,
    forbidUnknownValues: false,
    exceptionFactory: (errors) => problems.badRequest(flatten(errors, '')),
  });
}

/** class-validator's checks of a member's type: when one fails, the member's other checks say nothing more. */
const TYPE_CHECKS = new Set(['isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isArray', 'isIn', 'isEnum']);

function flatten(errors: ValidationError[], prefix: string): FieldError[] {
  return errors.flatMap((error) => {
    const pointer = `${prefix}/${error.property}`;
    const own = messagesOf(error).map((message) => ({ pointer, message }));
    return [...own, ...flatten(error.children ?? [], pointer)];
  });
}

/**
 * One message for a member that is missing or of the wrong type: every check of a missing `reason` failing at once
 * ("must not be blank", "must be shorter than…", "must be a string") contradicted itself.
 */
function messagesOf(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.length === 0) return [];
  if (error.value === undefined) return [`${error.property} is required`];
  const typeCheck = names.find((name) => TYPE_CHECKS.has(name));
  return typeCheck ? [constraints[typeCheck]!] : Object.values(constraints);
}
