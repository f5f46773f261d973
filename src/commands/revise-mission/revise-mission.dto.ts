import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsObject, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/** Field types only; the definition's content is the domain's to judge (422 invalid_definition). */
export class ReviseMissionDto {
  @ApiPropertyOptional({ description: '0 = must not exist; omitted = unconditional' })
  @IsOptional()
  @IsInt()
  @Min(0)
  expectedRevision?: number;

  @ApiProperty({ enum: ['active', 'paused', 'cancelled', 'revoked'] })
  @IsString()
  @IsIn(['active', 'paused', 'cancelled', 'revoked'], { message: 'state must be active, paused, cancelled or revoked' })
  state!: string;

  @ApiProperty({
    description:
      'maxExecutionsPerHour, maxConcurrent, resourceScopes, classification, acceptLowerTrust, maxCausalDepth',
  })
  @IsObject()
  grants!: Record<string, unknown>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}
