import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class SettleExecutionDto {
  @ApiProperty({ description: 'Names this settlement in the audit log' })
  @IsString()
  @Length(1, 200)
  settlementId!: string;
}
