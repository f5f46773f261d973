import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export const MAX_HELD_DECISION_REASON = 2000;

/** An operator's release or dismissal of a held catch-up range is audited like a recovery: it says why. */
export class DecideHeldInstantsDto {
  @ApiProperty({
    description: 'Why the operator releases or dismisses the held range; recorded on the event',
    maxLength: MAX_HELD_DECISION_REASON,
  })
  @IsString()
  @MaxLength(MAX_HELD_DECISION_REASON)
  @Matches(/\S/, { message: 'reason must not be blank' })
  reason!: string;
}
