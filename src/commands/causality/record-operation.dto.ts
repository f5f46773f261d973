import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, IsString, Length, Matches, Min, ValidateNested } from 'class-validator';
import { MAX_CORRELATION_KEY_LENGTH } from '../../domain/causality/correlation.js';

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const ID_MESSAGE = 'ids are 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"';

/** CA-2: the source a correlated delivery will arrive from, and the value at that source's correlationPointer. */
export class ExpectedCorrelationDto {
  @ApiProperty({ pattern: ID.source, maxLength: 128 })
  @IsString()
  @Matches(ID, { message: `sourceId: ${ID_MESSAGE}` })
  sourceId!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_CORRELATION_KEY_LENGTH })
  @IsString()
  @Length(1, MAX_CORRELATION_KEY_LENGTH)
  key!: string;
}

export class RecordOperationDto {
  @ApiProperty({ description: 'The fence the claim returned' })
  @IsInt()
  @Min(1)
  fence!: number;

  @ApiProperty({ pattern: ID.source, maxLength: 128 })
  @IsString()
  @Matches(ID, { message: `operationId: ${ID_MESSAGE}` })
  operationId!: string;

  // ValidateNested alone lets a missing value and an array (validated item by item, none) through.
  @ApiProperty({ type: ExpectedCorrelationDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ExpectedCorrelationDto)
  correlation!: ExpectedCorrelationDto;
}
