import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';
import { EXECUTION_OUTCOMES, type ExecutionOutcome } from '../../domain/execution/index.js';

export class CompleteExecutionDto {
  @ApiProperty({ description: 'The fence the claim returned' })
  @IsInt()
  @Min(1)
  fence!: number;

  @ApiProperty({ enum: EXECUTION_OUTCOMES })
  @IsIn(EXECUTION_OUTCOMES)
  outcome!: ExecutionOutcome;

  @ApiPropertyOptional({
    description: 'What the consumer committed (bounded: 16 KiB as JSON); returned to a later settlement',
  })
  @IsOptional()
  receipt?: unknown;
}
