import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, MaxLength, Min, ValidateIf } from 'class-validator';
import { DefinitionEnvelopeDto, isPresent } from '../shared/definition-envelope.dto.js';

/** PUT /v1/triggers/{triggerId}: type, blocks and policies are the domain's to judge. */
export class ReviseTriggerDto extends DefinitionEnvelopeDto {}

export class ReasonDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;

  @ApiPropertyOptional()
  @ValidateIf(isPresent)
  @IsInt()
  @Min(0)
  expectedRevision?: number;
}
