import { loadConfig } from '../config/config.js';
import { type Options, UsageError } from './args.js';
import { ApplyClient, describeRefusal } from './apply-client.js';
import { serviceToken, serviceUrl } from './service-access.js';
import { type ExplainedOccurrence, explainOccurrence } from './why-explain.js';

/** What `reveille why` reads: the Occurrence, and the bound Trigger revision to name a guard's literal. */
const WHY_SCOPES = 'operator:read';
/** An Occurrence id as the API spells one (a SHA-256 hex today; any resource id is asked, nothing longer). */
const OCCURRENCE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The service answered, but not with the Occurrence (unknown id, another tenant's, a refused token): exit 1. */
export class WhyRefused extends Error {
  override readonly name = 'WhyRefused';
}

/** `reveille why <occurrenceId>`: a client of the operator read API (OP-2), like `reveille apply`. */
export async function whyCommand(options: Options, positional: readonly string[]): Promise<void> {
  if (positional.length !== 1) throw new UsageError('name exactly one occurrence id');
  const occurrenceId = positional[0]!;
  if (!OCCURRENCE_ID.test(occurrenceId))
    throw new UsageError('an occurrence id is 1–128 characters of A–Z, a–z, 0–9, ".", "_", ":" and "-"');
  const config = loadConfig();
  const token = await serviceToken(options, config, { command: 'why', scopes: WHY_SCOPES, subject: 'reveille-why' });
  const client = new ApplyClient(serviceUrl(options, config), token);
  const answer = await client.get(`/v1/operator/occurrences/${occurrenceId}`);
  if (answer.status === 404) {
    // An unknown id, or no service at this URL (a wrong base path answers 404 too): said as such, not as the id's.
    await client.confirmService();
    throw new WhyRefused(`no occurrence ${occurrenceId} in this tenant`);
  }
  if (answer.status !== 200) throw new WhyRefused(describeRefusal(answer));
  const view = answer.body as unknown as ExplainedOccurrence;
  const definition = await boundDefinition(client, view);
  process.stdout.write(`${explainOccurrence(view, definition).join('\n')}\n`);
}

/** Only a guard's sentence needs the definition; a Trigger that cannot be read leaves the test unnamed, no more. */
async function boundDefinition(
  client: ApplyClient,
  view: ExplainedOccurrence,
): Promise<Record<string, unknown> | null> {
  if (view.reason !== 'guard_false' && view.reason !== 'guard_fault') return null;
  const answer = await client.get(`/v1/triggers/${encodeURIComponent(view.triggerId)}/revisions`);
  if (answer.status !== 200 || !Array.isArray(answer.body.items)) return null;
  const bound = (answer.body.items as Array<{ revision?: number; definition?: Record<string, unknown> }>).find(
    (item) => item.revision === view.triggerRevision,
  );
  return bound?.definition ?? null;
}
