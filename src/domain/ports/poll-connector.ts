import type { PollFailure, PollPage } from '../poll/poll-page.js';
import type { PollBinding } from '../trigger/trigger-blocks.js';

export type PollFetch = { ok: true; page: PollPage } | { ok: false; failure: PollFailure };

/**
 * A poll Trigger's connector (`http-json@1`): one fetch of the page after `cursor` (null: the first page).
 * Never throws for what the upstream did: every answer that is not a page is a failure (PO-4).
 */
export interface PollConnector {
  readonly id: PollBinding['connector'];
  fetch(binding: PollBinding, cursor: string | null): Promise<PollFetch>;
}
