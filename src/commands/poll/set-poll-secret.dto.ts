import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export const MAX_POLL_SECRET_LENGTH = 4096;

/**
 * RFC 6750 `b64token`: what an Authorization header can carry as is. No space or control character, so the
 * secret can neither split the header nor add another; the messages never quote it.
 */
export const POLL_SECRET_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;

export class SetPollSecretDto {
  @ApiProperty({
    description:
      'The bearer token polls send as `Authorization: Bearer <secret>` (RFC 6750 b64token). Stored sealed, never shown again.',
    maxLength: MAX_POLL_SECRET_LENGTH,
    pattern: POLL_SECRET_PATTERN.source,
  })
  @IsString({ message: 'secret must be a string' })
  @MaxLength(MAX_POLL_SECRET_LENGTH, { message: `secret is longer than ${MAX_POLL_SECRET_LENGTH} characters` })
  @Matches(POLL_SECRET_PATTERN, {
    message: 'secret must be a bearer token: letters, digits, "-", ".", "_", "~", "+", "/", then any "=" padding',
  })
  secret!: string;
}
