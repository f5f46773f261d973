import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

export class ClaimExecutionDto {
  @ApiProperty({ description: 'Who holds the claim, shown to operators' })
  @IsString()
  @Length(1, 200)
  @Matches(/^[\x21-\x7e]+$/, { message: 'consumerId must be visible ASCII' })
  consumerId!: string;
}
