import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/** Only the envelope is typed: the domain validates the definition, so every fault is one 422 with its pointer. */
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
