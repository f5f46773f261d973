export {
  classifyContentType,
  CLOUDEVENTS_BINARY_REQUIRED,
  type ContentTypeResult,
  type PayloadFormat,
} from './content-type.js';
export {
  asciiLower,
  hasHeader,
  indexHeaders,
  singleHeader,
  type HeaderIndex,
  type HeaderInput,
  type IncomingHeadersLike,
  type MalformedRequest,
  type SingleHeader,
} from './headers.js';
export { bodyDigest, payloadDigest } from '../../domain/occurrence/payload-digest.js';
export {
  generateSecret,
  GENERATED_SECRET_BYTES,
  MAX_SECRET_BYTES,
  MIN_GITHUB_SECRET_CHARS,
  MIN_STANDARD_WEBHOOKS_KEY_BYTES,
  parseSecret,
  SourceSecretError,
  WHSEC_PREFIX,
  type ParsedSecret,
  type SecretErrorCode,
  type SignedScheme,
  type SourceScheme,
} from '../../domain/source/source-secret.js';
export {
  MAX_DELIVERY_ID_LENGTH,
  validateDeliveryId,
  verifyDelivery,
  type AuthFailure,
  type SourceKey,
  type VerificationFailure,
  type VerificationResult,
  type VerifiedDelivery,
  type VerifyDeliveryInput,
} from './verify.js';
