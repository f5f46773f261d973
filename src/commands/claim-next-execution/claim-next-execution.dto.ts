import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { MAX_CLAIM_NEXT_WAIT_SECONDS } from './claim-next-wait.js';

export class ClaimNextExecutionDto {
  @ApiProperty({ description: 'Who holds the claim, shown to operators' })
  @IsString()
  @Length(1, 200)
  @Matches(/^[\x21-\x7e]+$/, { message: 'consumerId must be visible ASCII' })
  consumerId!: string;

  @ApiPropertyOptional({ description: "Only this Mission's executions" })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  missionId?: string;

  @ApiPropertyOptional({ description: "Only this Trigger's executions" })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  triggerId?: string;

  @ApiPropertyOptional({
    description: 'Long poll: how many seconds to wait for a claimable execution, fractions allowed (default 0)',
    minimum: 0,
    maximum: MAX_CLAIM_NEXT_WAIT_SECONDS,
  })
  @IsOptional()
  // api.md gives a range, 0–20, not a unit step: a consumer may poll for half a second.
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_CLAIM_NEXT_WAIT_SECONDS)
  waitSeconds?: number;
}
