import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsOptional, IsString, Length, Matches, Min } from 'class-validator';

const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const ID_MESSAGE = 'must be 1-128 letters, digits and . _ : - (starting with a letter or digit)';

/** SU-1: the body of `POST /v1/executions/{executionId}/subscriptions`; `match` is checked by the domain. */
export class RegisterSubscriptionDto {
  @ApiProperty({ description: 'The fence the claim returned' })
  @IsInt()
  @Min(1)
  fence!: number;

  @ApiProperty({ description: "The execution's own id for this wait", pattern: RESOURCE_ID.source, maxLength: 128 })
  @IsString()
  @Matches(RESOURCE_ID, { message: `subscriptionId ${ID_MESSAGE}` })
  subscriptionId!: string;

  @ApiPropertyOptional({ description: 'Wait on this webhook or poll Trigger (exactly one of triggerId, sourceId)' })
  @IsOptional()
  @IsString()
  @Matches(RESOURCE_ID, { message: `triggerId ${ID_MESSAGE}` })
  triggerId?: string | null;

  @ApiPropertyOptional({ description: "Wait on any Occurrence of this source's deliveries" })
  @IsOptional()
  @IsString()
  @Matches(RESOURCE_ID, { message: `sourceId ${ID_MESSAGE}` })
  sourceId?: string | null;

  @ApiProperty({
    description:
      "`correlationKey` (1-256 characters, compared with the value at the source's correlationPointer of a verified delivery) and/or `fields` (1-16 JSON pointers into the payload → string, number, boolean or null)",
    type: 'object',
    additionalProperties: true,
  })
  @IsObject()
  match!: Record<string, unknown>;

  @ApiProperty({ description: 'RFC 3339 UTC instant ahead (database clock), at most 7 days', maxLength: 40 })
  @IsString()
  @Length(20, 40)
  deadline!: string;
}
