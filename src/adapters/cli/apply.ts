import { randomUUID } from 'node:crypto';
import type { MissionGrants } from '../../domain/mission/mission-grants.js';
import { validateMissionDefinition } from '../../domain/mission/mission-grants.js';
import { loadConfig } from '../config/config.js';
import { stringOption, UsageError } from './args.js';
import { type Answer, ApplyClient, describeRefusal } from './apply-client.js';
import { type Entry, entryName, readDefinitionsFile } from './apply-file.js';
import { compareWithCurrent } from './apply-plan.js';
import { progress } from './progress.js';
import { serviceToken, serviceUrl } from './service-access.js';

type Options = Record<string, string | true>;
type Outcome = 'created' | 'changed' | 'unchanged';
const PLANNED: Record<Outcome, string> = { created: 'would create', changed: 'would change', unchanged: 'unchanged' };
/** What apply reads and writes, and nothing more (a minted token is as narrow as the job). */
const APPLY_SCOPES = 'missions:write sources:write triggers:write operator:read';
/** Fewer lines than this need no progress beside them. */
const PROGRESS_FROM = 20;

/** A write the service refused: one line naming the file entry, exit 1. */
export class ApplyRefused extends Error {
  override readonly name = 'ApplyRefused';
}

/**
 * Missions, then sources, then triggers, each through the HTTP API of a running service. Re-running a file is
 * safe: the service appends nothing for an unchanged definition (a PUT of an equal body answers its current
 * revision), so a re-run after a crash finds what the interrupted run committed and writes nothing twice.
 */
export async function applyCommand(options: Options): Promise<void> {
  const file = stringOption(options, 'file');
  if (file === undefined) throw new UsageError('-f FILE is required');
  const dryRun = options['dry-run'] === true;
  if (options['dry-run'] !== undefined && !dryRun) throw new UsageError('--dry-run takes no value');
  const config = loadConfig();
  const entries = readDefinitionsFile(file, config.maxJsonDepth);
  const token = await serviceToken(options, config, {
    command: 'apply',
    scopes: APPLY_SCOPES,
    subject: 'reveille-apply',
  });
  const client = new ApplyClient(serviceUrl(options, config), token);
  const counts: Record<Outcome, number> = { created: 0, changed: 0, unchanged: 0 };
  const planned = new Map<string, MissionGrants>();
  const run = randomUUID();
  const bar = entries.length >= PROGRESS_FROM ? progress('apply', entries.length, 'definitions', 10) : undefined;
  try {
    for (const [done, entry] of entries.entries()) {
      const current = await read(client, entry);
      if (dryRun) {
        const outcome = await plan(client, entry, current, planned);
        counts[outcome]++;
        process.stdout.write(`${entryName(entry)}: ${PLANNED[outcome]}\n`);
      } else {
        const { outcome, revision } = await write(client, entry, current?.revision as number | undefined, run);
        counts[outcome]++;
        process.stdout.write(`${entryName(entry)}: ${outcome} (revision ${revision})\n`);
      }
      bar?.update(done + 1);
    }
  } finally {
    bar?.stop();
  }
  const summary = dryRun
    ? `dry run, nothing written: ${counts.created} to create, ${counts.changed} to change, ${counts.unchanged} unchanged`
    : `${counts.created} created, ${counts.changed} changed, ${counts.unchanged} unchanged`;
  process.stdout.write(`${summary}\n`);
}

const pathOf = (entry: Pick<Entry, 'kind' | 'id'>) => `/v1/${entry.kind}/${encodeURIComponent(entry.id)}`;

async function read(client: ApplyClient, entry: Entry): Promise<Record<string, unknown> | null> {
  const answer = await client.get(pathOf(entry));
  if (answer.status === 404) {
    // Not yet defined, or no service at this URL at all: the latter is not this entry's error.
    await client.confirmService();
    return null;
  }
  if (answer.status !== 200) throw refused(entry, answer);
  return answer.body;
}

/** The service's answer decides the line: the revision it read before and the one it answers after. */
async function write(
  client: ApplyClient,
  entry: Entry,
  before: number | undefined,
  run: string,
): Promise<{ outcome: Outcome; revision: number }> {
  const answer = await client.put(pathOf(entry), entry.body, idempotencyKey(entry, run));
  if (answer.status !== 200) throw refused(entry, answer);
  const revision = answer.body.revision as number;
  const outcome = before === undefined ? 'created' : revision === before ? 'unchanged' : 'changed';
  return { outcome, revision };
}

async function plan(
  client: ApplyClient,
  entry: Entry,
  current: Record<string, unknown> | null,
  planned: Map<string, MissionGrants>,
): Promise<Outcome> {
  if (entry.kind === 'missions') {
    const validated = validateMissionDefinition(entry.body);
    if (validated.ok) planned.set(entry.id, validated.value.grants);
  }
  if (current === null && entry.kind !== 'triggers') {
    const check = compareWithCurrent(entry, {}, () => undefined);
    if ('errors' in check) throw invalid(entry, check.errors);
    return 'created';
  }
  const grants = new Map(planned);
  const missionId = typeof entry.body.missionId === 'string' ? entry.body.missionId : undefined;
  if (entry.kind === 'triggers' && missionId && !grants.has(missionId)) {
    const mission = await client.get(pathOf({ kind: 'missions', id: missionId }));
    if (mission.status === 200) grants.set(missionId, mission.body.grants as MissionGrants);
  }
  const check = compareWithCurrent(entry, current ?? {}, (id) => grants.get(id));
  if ('errors' in check) throw invalid(entry, check.errors);
  if (current === null) return 'created';
  return check.equal ? 'unchanged' : 'changed';
}

/**
 * One key per write of this run (a retry of that write would send it again). Never derived from the entry alone:
 * a Trigger whose text did not change may still need its PUT executed (its inherited constraints follow its
 * Mission's grants), and a key the service kept from an earlier run would replay that run's answer instead.
 */
const idempotencyKey = (entry: Entry, run: string) => `reveille-apply-${entry.kind}-${entry.index}-${run}`;

const refused = (entry: Entry, answer: Answer) => new ApplyRefused(`${entryName(entry)}: ${describeRefusal(answer)}`);

const invalid = (entry: Entry, errors: Array<{ pointer: string; message: string }>) =>
  new ApplyRefused(
    `${entryName(entry)}: would be refused: invalid_definition ${errors.map((e) => `${e.pointer}: ${e.message}`).join('; ')}`,
  );
