import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { EXECUTION_OUTCOMES, type ExecutionOutcome } from '../../domain/execution/index.js';

/** What went wrong, as the operator views and dead letters show it (bounded: never a payload dump). */
export class ExecutionErrorDto {
  @ApiProperty({ maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' })
  @IsString()
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_.:-]+$/, { message: 'code must be letters, digits and _ . : -' })
  code!: string;

  @ApiProperty({ maxLength: 2000 })
  @IsString()
  @MaxLength(2000)
  message!: string;
}

export class CompleteExecutionDto {
  @ApiProperty({ description: 'The fence the claim returned' })
  @IsInt()
  @Min(1)
  fence!: number;

  @ApiProperty({ enum: EXECUTION_OUTCOMES })
  @IsIn(EXECUTION_OUTCOMES)
  outcome!: ExecutionOutcome;

  @ApiPropertyOptional({
    description: 'EX-4: a failed attempt worth retrying (with backoff, up to the delivery maxAttempts); default false',
  })
  @IsOptional()
  @IsBoolean()
  retryable?: boolean;

  @ApiPropertyOptional({ type: ExecutionErrorDto })
  @IsOptional()
  @IsObject() // ValidateNested alone accepts an array (validated item by item)
  @ValidateNested()
  @Type(() => ExecutionErrorDto)
  error?: ExecutionErrorDto;

  @ApiPropertyOptional({
    description: 'What the consumer committed (bounded: 16 KiB as JSON); returned to a later settlement',
  })
  @IsOptional()
  receipt?: unknown;
}
