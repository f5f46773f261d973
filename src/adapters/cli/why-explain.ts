import { resolvePointer } from '../../domain/shared/json-pointer.js';

/** The operator view of one Occurrence (api.md "Operator read API"), as `reveille why` reads it. */
export interface ExplainedOccurrence {
  occurrenceId: string;
  triggerId: string;
  triggerRevision: number;
  kind: string;
  status: string;
  reason: string | null;
  observedAt: string;
  decidedAt?: string | null;
  executionId: string | null;
  externalId?: string | null;
  auth?: { state?: string; sourceId?: string | null; keyId?: string | null };
  evidence: Record<string, unknown>;
  conflicts?: number;
  members?: unknown;
  dedupeIdentity?: Record<string, unknown>;
}

type Evidence = Record<string, unknown>;

/** A value as an operator reads it: strings quoted, everything else as JSON. */
const shown = (value: unknown): string => (value === undefined ? '?' : JSON.stringify(value));
const text = (value: unknown): string => (typeof value === 'string' ? value : shown(value));

/**
 * `reveille why`: the decision, its reason and its evidence in plain words — one headline
 * (`suppressed: guard_false — /action equals "opened" was false`), then what the Occurrence was and every
 * evidence field, so nothing the service recorded is hidden behind the sentence. `definition` is the bound
 * Trigger revision's definition when it could be read: it names what a guard clause compared against.
 */
export function explainOccurrence(view: ExplainedOccurrence, definition: Evidence | null = null): string[] {
  const lines = [headline(view, definition)];
  const source = view.auth?.sourceId ? `, source ${view.auth.sourceId} (${view.auth.state ?? 'unknown'})` : '';
  lines.push(
    `occurrence ${view.occurrenceId}: ${view.kind}, Trigger ${view.triggerId} revision ${view.triggerRevision}${source}`,
  );
  lines.push(`observed ${view.observedAt}${view.decidedAt ? `, decided ${view.decidedAt}` : ', not decided yet'}`);
  if (view.executionId) lines.push(`execution ${view.executionId}`);
  if (view.externalId) lines.push(`external id ${view.externalId}`);
  const generation = view.dedupeIdentity?.generation;
  if (typeof generation === 'number' && generation > 0)
    lines.push(
      `its identity's use number ${generation + 1}: each earlier one was decided and out of its dedupe window`,
    );
  if (view.conflicts)
    lines.push(`${view.conflicts} later deliveries of this identity carried another payload (payload_conflict)`);
  if (Array.isArray(view.members)) lines.push(`members: ${view.members.map(text).join(', ')}`);
  const fields = Object.entries(view.evidence ?? {});
  if (fields.length > 0) {
    lines.push('evidence:');
    for (const [name, value] of fields) lines.push(`  ${name}: ${text(value)}`);
  }
  return lines;
}

function headline(view: ExplainedOccurrence, definition: Evidence | null): string {
  if (view.status === 'observed') return 'observed: not decided yet — it waits for admission';
  if (view.status === 'admitted') {
    const passed = Array.isArray(view.evidence.prefilters) ? ', every prefilter passed' : '';
    return `admitted: execution ${view.executionId ?? '?'} was requested${passed}`;
  }
  const reason = view.reason ?? 'no reason recorded';
  const why = view.reason ? sentence(view.reason, view.evidence, definition) : null;
  return `${view.status}: ${reason}${why ? ` — ${why}` : ''}`;
}

/** One sentence per reason the service produces; anything else (coalesced, batched, …) gets its fields. */
function sentence(reason: string, e: Evidence, definition: Evidence | null): string {
  const mission = () => `Mission ${text(e.missionId)} is ${text(e.missionState)} (revision ${text(e.missionRevision)})`;
  switch (reason) {
    case 'trigger_deleted':
      return `Trigger ${text(e.triggerId)} was deleted before admission`;
    case 'trigger_disabled':
      return `Trigger ${text(e.triggerId)} was disabled (revision ${text(e.currentRevision)}) at admission`;
    case 'revision_superseded':
      return `bound to revision ${text(e.triggerRevision)}, but the Trigger is at revision ${text(e.currentRevision)} and does not accept older ones`;
    case 'mission_paused':
    case 'mission_cancelled':
    case 'mission_revoked':
      return e.missionState === 'absent' ? `Mission ${text(e.missionId)} does not exist` : mission();
    case 'lower_trust_not_allowed':
      return `the delivery was ${text(e.authState)} and lower trust is not accepted (Trigger ${text(e.triggerAcceptsLowerTrust)}, Mission ${text(e.missionAcceptsLowerTrust)})`;
    case 'key_revoked':
      return `key ${text(e.keyId)} (generation ${text(e.keyGeneration)}) of source ${text(e.sourceId)} that authenticated it is revoked`;
    case 'scope_violation':
      return e.violation === 'classification'
        ? `classification ${text(e.classification)} is above the ceiling ${text(e.ceiling)}`
        : `resources ${text(e.resourceRefs)} are outside the scopes (Trigger ${text(e.triggerScopes)}, Mission ${text(e.missionScopes)})`;
    case 'causal_depth_exceeded':
      // CA-1: an execution standing for several Occurrences may carry at most so many references (never cut).
      if (e.entries !== undefined)
        return `its causes hold ${text(e.entries)} references, over the ${text(e.maxEntries)} one execution may carry`;
      if (e.truncated === true)
        return `its recorded chain shows ${text(e.hops)} of its ${text(e.depth)} hops (cut), so it is taken as too deep`;
      return `causal depth ${text(e.depth)} is over the maximum ${text(e.maxDepth)}`;
    case 'causal_loop':
      return `Trigger ${text(e.triggerId)} is already among its causes (${text(e.via)})`;
    case 'guard_false':
      return `${guardClause(e, definition)} was false`;
    case 'guard_fault':
      return e.fault === undefined
        ? `${text(e.pointer)}: ${text(e.problem)}`
        : `${guardClause(e, definition)} could not be evaluated: ${text(e.fault)}${e.at !== undefined ? ` at ${text(e.at)}` : ''}${e.found !== undefined ? ` (found ${text(e.found)})` : ''}`;
    case 'unchanged':
      return `${filterName(e)}: resource ${text(e.resource)} still has digest ${text(e.digest)}, as at its baseline ${baselineOf(e)}`;
    case 'irrelevant':
      return `${filterName(e)}: ${text(e.pointer)} is ${e.value !== undefined ? shown(e.value) : `a ${text(e.found)}`}, not one of the listed values`;
    case 'outside_window':
      return `${filterName(e)}: accepted ${text(e.local)} (${text(e.day)}, ${text(e.timezone)}) is outside the window`;
    case 'filter_inconclusive':
      return `${filterName(e)} could not decide: ${text(e.problem)}`;
    case 'overlap_skip':
      return `execution ${text(e.runningExecutionId)} of Trigger ${text(e.triggerId)} was still running (overlap: skip)`;
    case 'budget_exhausted':
      return `${text(e.consumed)} of ${text(e.limit)} executions this hour were used (window from ${text(e.windowStart)})`;
    case 'concurrency_limit':
      return `${text(e.active)} of ${text(e.limit)} concurrent executions were active`;
    default:
      return fieldsOf(e);
  }
}

/** `/action equals "opened"` from the bound definition when it can be read, else the test alone. */
function guardClause(e: Evidence, definition: Evidence | null): string {
  const clause = typeof e.clause === 'string' ? e.clause : '';
  if (typeof e.pointer !== 'string' || typeof e.test !== 'string') return `the guard clause ${clause || '?'}`;
  const found = definition && clause ? resolvePointer(definition, clause) : { found: false as const };
  const leaf = found.found && typeof found.value === 'object' && found.value !== null ? (found.value as Evidence) : {};
  const literal = e.test in leaf ? ` ${shown(leaf[e.test])}` : '';
  return `${e.pointer} ${e.test}${literal}`;
}

const filterName = (e: Evidence) => `filter ${text(e.filter)}@${text(e.version)}`;

function baselineOf(e: Evidence): string {
  const baseline = e.baseline as Evidence | null | undefined;
  return baseline && typeof baseline === 'object' ? `(occurrence ${text(baseline.occurrenceId)})` : '(none)';
}

const fieldsOf = (e: Evidence): string =>
  Object.entries(e)
    .map(([name, value]) => `${name}=${text(value)}`)
    .join(', ') || 'no evidence recorded';
