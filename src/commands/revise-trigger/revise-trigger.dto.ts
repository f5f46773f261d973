import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/**
 * Only the envelope is typed here; the definition itself (type, blocks, policies) is validated by
 * the domain so every fault comes back as 422 invalid_definition with its pointer.
 */
export class ReviseTriggerDto {
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

export class ReasonDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(0)
  expectedRevision?: number;
}
