import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** Field types only; whether a secret fits the source's scheme is the handler's 422 (pointer /secret). */
export class AddSourceKeyDto {
  /** Any other member is refused (422 invalid_definition): `{"keyid": "k2"}` must not add a key under a new id. */
  static readonly members = ['keyId', 'secret'] as const;

  @ApiPropertyOptional({ description: 'generated when absent; 1–128 of A–Z a–z 0–9 . _ : -' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, {
    message: 'keyId is 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"',
  })
  keyId?: string;

  @ApiPropertyOptional({
    description:
      'standard-webhooks: whsec_ + base64 of ≥ 24 bytes; github-hmac-sha256: ≥ 16 characters. Generated when absent.',
  })
  @IsOptional()
  @IsString({ message: 'secret must be a string' })
  @MaxLength(4096, { message: 'secret is too long' })
  secret?: string;
}
