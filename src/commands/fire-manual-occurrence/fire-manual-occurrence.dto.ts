import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';

export class FireManualOccurrenceDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Mission input, a JSON object; bounded (64 KiB as canonical JSON)',
  })
  @IsOptional()
  @IsObject() // api.md: `"input": { … }`; an array or a scalar is a wrong field type
  input?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Concrete resource ids (TR-2), each covered by the Trigger and Mission scopes at admission: no "*", no "." or ".." segment (400 otherwise)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(512, { each: true })
  resourceRefs?: string[];
}
