import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { MAX_CURSOR_LENGTH } from '../../domain/poll/poll-page.js';

export const MAX_CURSOR_REASON = 2000;

export class SetPollCursorDto {
  @ApiProperty({
    description: 'The cursor later polls start from; null polls from the first page again',
    nullable: true,
    maxLength: MAX_CURSOR_LENGTH,
  })
  @ValidateIf((body: SetPollCursorDto) => body.cursor !== null)
  @IsString()
  @MaxLength(MAX_CURSOR_LENGTH)
  // a cursor is sent back as a query parameter: no control characters, and not empty
  @Matches(/^[^\u0000-\u001f\u007f]+$/, { message: 'cursor must be non-empty and without control characters' })
  cursor!: string | null;

  @ApiProperty({ description: 'Why the operator sets it; recorded on PollCursorSet', maxLength: MAX_CURSOR_REASON })
  @IsString()
  @MaxLength(MAX_CURSOR_REASON)
  @Matches(/\S/, { message: 'reason must not be blank' })
  reason!: string;
}
