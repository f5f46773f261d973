import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/**
 * The envelope of a definition PUT (Mission-style optimistic concurrency plus a reason). Only the
 * envelope is typed here; the definition itself is validated by the domain, so every fault comes
 * back as 422 invalid_definition with its pointer.
 */
export class DefinitionEnvelopeDto {
  [member: string]: unknown;

  @ApiPropertyOptional({ description: '0 = must not exist; omitted = unconditional' })
  @IsOptional()
  @IsInt()
  @Min(0)
  expectedRevision?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}
