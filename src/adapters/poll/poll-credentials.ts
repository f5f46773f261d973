import type { PollCredentials } from '../../domain/ports/poll-connector.js';
import type { PollSecrets } from '../../domain/ports/poll-secrets.js';
import { originOf, type PollState, secretGoesTo, secretOf } from '../../domain/poll/poll-events.js';
import { pollFailure, type PollFailure } from '../../domain/poll/poll-page.js';
import type { PollBinding } from '../../domain/trigger/trigger-blocks.js';

export type CredentialsRead = { ok: true; credentials: PollCredentials | null } | { ok: false; failure: PollFailure };

/**
 * What a poll authenticates with: nothing without `poll.auth`; else the secret the poll state names (the last
 * `PollSecretSet`, so a rotation is used by the next poll), and only to the origin it was set for. Without one the
 * poll is a `PollFailed` (`secret_missing`, PO-4: nothing starts, the cursor stays), never an unauthenticated
 * request, nor the secret sent to a host a later revision named.
 */
export async function credentialsFor(
  secrets: PollSecrets | undefined,
  key: { tenant: string; triggerId: string },
  binding: Pick<PollBinding, 'auth' | 'url'>,
  state: Pick<PollState, 'secret'>,
): Promise<CredentialsRead> {
  if ((binding.auth ?? null) === null) return { ok: true, credentials: null };
  const named = secretOf(state);
  if (named === null || secrets === undefined)
    return missing(`poll.auth asks for a bearer secret and none is set (PUT /v1/triggers/{triggerId}/poll-secret)`);
  if (!secretGoesTo(named, binding.url))
    return missing(
      `the poll secret was set for ${named.origin}, and the Trigger now polls ${originOf(binding.url)}: set it again for the new host`,
    );
  const bearer = await secrets.open({ ...key, secretId: named.secretId });
  return bearer === null
    ? missing('the poll secret is gone or does not open under the configured REVEILLE_SECRET_KEY; set it again')
    : { ok: true, credentials: { bearer } };
}

const missing = (detail: string): CredentialsRead => ({ ok: false, failure: pollFailure('secret_missing', detail) });
