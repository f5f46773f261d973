import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength } from 'class-validator';

export class FireManualOccurrenceDto {
  @ApiPropertyOptional({ description: 'Mission input; bounded (64 KiB as canonical JSON)' })
  @IsOptional()
  input?: unknown;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  resourceRefs?: string[];
}
