import type { PollFailure, PollPage } from '../poll/poll-page.js';
import type { PollBinding } from '../trigger/trigger-blocks.js';

/** What the connector sends to authenticate: the Trigger's bearer secret, opened just for this fetch. */
export interface PollCredentials {
  bearer: string;
}

export type PollFetch = { ok: true; page: PollPage } | { ok: false; failure: PollFailure };

/**
 * A poll Trigger's connector (`http-json@1`): one fetch of the page after `cursor` (null: the first page).
 * Never throws for what the upstream did: every answer that is not a page is a failure (PO-4).
 */
export interface PollConnector {
  readonly id: PollBinding['connector'];
  fetch(binding: PollBinding, cursor: string | null, credentials?: PollCredentials | null): Promise<PollFetch>;
}
