import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength, Min, ValidateIf } from 'class-validator';

/** The members of a definition body that are the command's, not the definition's. */
export const ENVELOPE_MEMBERS = ['expectedRevision', 'reason'] as const;

/**
 * `null` is not "omitted": @IsOptional would let it through to the decider, which answered 409 "expected revision
 * null". Only an absent member skips the type check, so `null` is the 400 a wrong type is.
 */
export const isPresent = (_dto: object, value: unknown) => value !== undefined;

/** Only the envelope is typed: the domain validates the definition, so every fault is one 422 with its pointer. */
export class DefinitionEnvelopeDto {
  [member: string]: unknown;

  @ApiPropertyOptional({ description: '0 = must not exist; omitted = unconditional' })
  @ValidateIf(isPresent)
  @IsInt()
  @Min(0)
  expectedRevision?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}
