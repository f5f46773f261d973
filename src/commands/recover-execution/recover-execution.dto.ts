import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export const MAX_RECOVERY_REASON = 2000;

export class RecoverExecutionDto {
  @ApiProperty({ description: 'Why the operator recovers it; recorded on RecoveryRequested', maxLength: 2000 })
  @IsString()
  @MaxLength(MAX_RECOVERY_REASON)
  @Matches(/\S/, { message: 'reason must not be blank' })
  reason!: string;
}
