import { EXECUTION_STATUSES } from '../../../projections/executions/executions.queries.js';
import { OCCURRENCE_STATUSES } from '../../../projections/occurrences/occurrences.queries.js';
import { MISSION_STATES } from '../../../domain/mission/mission-grants.js';
import { SKIP_CAUSES } from '../../../domain/schedule/schedule-events.js';
import { missionDefinitionSchema, sourceDefinitionSchema, storedTriggerSchema } from './definition-schemas.js';
import {
  anyJson,
  array,
  bool,
  int,
  INSTANT,
  jsonObject,
  nullable,
  obj,
  oneOfStrings,
  page,
  POSITION,
  str,
  type SchemaObject,
} from './schema.js';
import { stale } from './log-schemas.js';

export * from './log-schemas.js';

/** What the routes answer (api.md); members beyond these may be added, never renamed. */
const range = obj({ from: INSTANT, to: INSTANT, count: int(0) }, ['from', 'to', 'count']);
const skippedRange = obj(
  {
    ...range.properties,
    cause: oneOfStrings(SKIP_CAUSES, {
      description:
        'why the instants never fire (SC-5): the missed policy (skip, latest, overflow), an operator (dismissed), the held limit, or a revision that ended the activation before a scheduler decided them (superseded: the schedule changed, also for a retired held range; disabled; deleted)',
    }),
  },
  ['from', 'to', 'count', 'cause'],
);
const revised = (id: string) =>
  obj({ [id]: str(), revision: int(1), position: POSITION }, [id, 'revision', 'position']);

export const missionRevised = revised('missionId');
export const sourceRevised = revised('sourceId');
export const triggerRevised = revised('triggerId');

export const missionView = obj(
  {
    missionId: str(),
    revision: int(1),
    state: oneOfStrings(MISSION_STATES),
    grants: missionDefinitionSchema.properties!.grants as SchemaObject,
    updatedAt: INSTANT,
    stale,
  },
  ['missionId', 'revision', 'state', 'grants'],
);

const { expectedRevision: _e, reason: _r, ...sourceFields } = sourceDefinitionSchema.properties!;
export const sourceView = obj(
  {
    ...sourceFields,
    revision: int(1),
    keys: array(
      obj({ keyId: str(), generation: int(1), retired: bool(), addedAt: INSTANT, retiredAt: nullable(INSTANT) }, [
        'keyId',
        'generation',
        'retired',
      ]),
    ),
    updatedAt: INSTANT,
    stale,
  },
  ['sourceId', 'revision', 'scheme', 'keys'],
);

export const sourceKeyAdded = obj(
  {
    keyId: str(),
    generation: int(1),
    secret: nullable(str({ description: 'shown only in this answer; null in a replay' })),
    position: POSITION,
  },
  ['keyId', 'generation', 'secret'],
);
export const sourceKeyRetired = obj(
  { sourceId: str(), keyId: str(), generation: int(0), retired: bool(), position: POSITION },
  ['sourceId', 'keyId', 'retired', 'position'],
);

export const triggerView = obj(
  {
    ...storedTriggerSchema.properties,
    triggerId: str(),
    revision: int(1),
    dedupeEpoch: int(0),
    pins: nullable(jsonObject('what the revision pinned, e.g. tzdataVersion')),
    revisedAt: INSTANT,
    stale,
  },
  ['triggerId', 'revision', ...(storedTriggerSchema.required ?? [])],
);

export const triggerRevisions = page(
  obj(
    {
      revision: int(1),
      recordedAt: INSTANT,
      actor: str(),
      reason: nullable(str()),
      definition: nullable(storedTriggerSchema),
      deleted: bool('the final revision of a deleted Trigger: no definition'),
    },
    ['revision', 'recordedAt', 'definition'],
  ),
);

const DECISIONS = ['admitted', 'blocked', 'suppressed', 'coalesced', 'batched'];
export const manualOccurrence = obj(
  {
    occurrenceId: str(),
    status: oneOfStrings(['observed', ...DECISIONS], { description: 'observed (202) or the decision (200, ?wait)' }),
    reason: nullable(str({ description: 'stable AD-3 reason code' })),
    executionId: nullable(str()),
    position: POSITION,
  },
  ['occurrenceId', 'status'],
);

const instant = obj(
  {
    scheduledAt: INSTANT,
    local: str({ description: "RFC 3339 with the zone's offset, no fraction" }),
    note: nullable(oneOfStrings(['shifted_forward', 'repeated_earlier', 'repeated_later'])),
  },
  ['scheduledAt', 'local', 'note'],
);
export const schedulePreview = obj({ instants: array(instant), engine: str(), tzdataVersion: str() }, [
  'instants',
  'engine',
  'tzdataVersion',
]);
export const storedInstants = obj(
  {
    ...schedulePreview.properties,
    triggerId: str(),
    revision: int(1),
    pinnedTzdataVersion: nullable(str()),
    tzdataDrift: bool(),
    stale,
  },
  ['instants', 'engine', 'tzdataVersion', 'triggerId', 'revision'],
);
export const heldDecided = obj(
  {
    triggerId: str(),
    action: oneOfStrings(['release', 'dismiss']),
    released: array(jsonObject('a released instant')),
    dismissed: array(range),
    held: array(jsonObject('a range still held')),
    position: POSITION,
  },
  ['triggerId', 'action', 'position'],
);

export const capabilities = obj({ capabilities: array(str({ pattern: '^wf\\.' })) }, ['capabilities']);

const recovery = array(obj({ action: str(), method: str(), href: str() }, ['action', 'method', 'href']));
const lastOccurrence = nullable(
  obj({ occurrenceId: str(), status: str(), reason: nullable(str()), observedAt: INSTANT }, ['occurrenceId', 'status']),
);
export const triggerHealthRow = obj(
  {
    triggerId: str(),
    revision: int(1),
    type: str(),
    missionId: str(),
    enabled: bool(),
    health: oneOfStrings(['ok', 'degraded', 'failing', 'held', 'disabled']),
    nextFireAt: nullable(INSTANT),
    lastFireAt: nullable(INSTANT),
    lastOccurrence,
    auth: nullable(obj({ lastResult: str(), keyId: nullable(str()), at: INSTANT })),
    counts: obj(
      {
        observed: int(0),
        admitted: int(0),
        duplicate: int(0, undefined, {
          description: 'webhook redeliveries of an accepted payload, and poll items seen again (PO-2)',
        }),
        blocked: { type: 'object', additionalProperties: int(0), description: 'by reason' },
        suppressed: { type: 'object', additionalProperties: int(0), description: 'by reason (BA-2, AD-4)' },
        coalesced: { type: 'object', additionalProperties: int(0), description: 'by reason (DD-5)' },
        batched: int(0),
        subscribed: int(0, undefined, { description: 'delivered to a wait-for subscription (SU-1)' }),
      },
      ['observed', 'admitted', 'duplicate', 'blocked'],
    ),
    executions: obj({ pending: int(0), claimed: int(0), retrying: int(0), dead: int(0) }),
    tzdataDrift: nullable(bool()),
    recovery,
  },
  ['triggerId', 'revision', 'type', 'missionId', 'enabled', 'health', 'counts'],
);
export const triggerHealthPage = page(triggerHealthRow);
export const triggerHealthDetail = obj(
  {
    ...triggerHealthRow.properties,
    recentOccurrences: array(jsonObject('an occurrence row, as in /v1/operator/occurrences')),
    schedule: nullable(
      obj({
        engine: str(),
        tzdataVersion: str(),
        boundary: nullable(INSTANT),
        skipped: array(skippedRange),
        held: array(range),
      }),
    ),
    stale,
  },
  triggerHealthRow.required,
);

export const occurrenceRow = obj(
  {
    occurrenceId: str(),
    triggerId: str(),
    triggerRevision: int(1),
    kind: str(),
    status: oneOfStrings(OCCURRENCE_STATUSES),
    reason: nullable(str()),
    auth: nullable(obj({ state: str(), sourceId: nullable(str()), keyId: nullable(str()) })),
    externalId: nullable(str()),
    observedAt: INSTANT,
    scheduledAt: nullable(INSTANT),
    firedAt: nullable(INSTANT),
    decidedAt: nullable(INSTANT),
    dedupeIdentity: jsonObject('what the dedupe identity was formed from (DD-1)'),
    conflicts: int(0, undefined, { description: 'deliveries of the same identity with another payload (OC-4)' }),
    missionId: str(),
    executionId: nullable(str()),
    causal: nullable(
      obj({ parentId: nullable(str()), depth: int(0), ancestry: anyJson('the chain, or "unknown"') }, [
        'parentId',
        'depth',
      ]),
    ),
    evidence: nullable(jsonObject('what decided it (AD-3, AD-4)')),
    members: array(str(), undefined, { description: 'DD-5: the coalesced group it stands for, in acceptance order' }),
    coalescedInto: str({ description: 'DD-5: status coalesced: the admitted member that stands for it' }),
  },
  ['occurrenceId', 'triggerId', 'status'],
);
export const occurrencePage = page(occurrenceRow);
export const occurrenceDetail = obj({ ...occurrenceRow.properties, stale }, occurrenceRow.required);

const lastError = nullable(obj({ code: str(), message: str() }, ['code', 'message']));
export const executionRow = obj(
  {
    executionId: str(),
    status: oneOfStrings(EXECUTION_STATUSES),
    attempt: int(1),
    generation: int(1),
    occurrenceId: str(),
    triggerId: str(),
    missionId: str(),
    lane: nullable(str()),
    nextAttemptAt: nullable(INSTANT),
    lastError,
  },
  ['executionId', 'status'],
);
export const executionPage = page(executionRow);
export const deadLetterPage = page(
  obj(
    {
      executionId: str(),
      occurrenceId: str(),
      triggerId: str(),
      missionId: str(),
      reason: oneOfStrings(['unclaimed', 'failed']),
      attempts: int(0),
      lastError,
      deadLetteredAt: INSTANT,
    },
    ['executionId', 'triggerId', 'missionId', 'reason', 'attempts'],
  ),
);
export const executionDetail = obj(
  {
    ...executionRow.properties,
    claim: nullable(obj({ consumerId: str(), fence: int(0), at: INSTANT })),
    completion: nullable(jsonObject('outcome, retryable, error, receipt')),
    settlement: nullable(jsonObject('decision and receipt')),
    history: array(obj({ type: str(), at: INSTANT }, ['type'])),
    stale,
  },
  ['executionId', 'status', 'history'],
);

export const claimBody = obj(
  {
    executionId: str(),
    fence: int(0),
    generation: int(1),
    attempt: int(1),
    occurrenceId: str(),
    triggerId: str(),
    triggerRevision: int(1),
    missionId: str(),
    lane: nullable(str()),
    scheduledAt: nullable(INSTANT),
    firedAt: nullable(INSTANT),
    input: anyJson('the Mission input (a batch: { members: [inputs…] })'),
    members: array(str()),
    ancestry: anyJson('CA-1: the causal chain the work descends from ([] for a root, or "unknown")'),
    limits: obj({ maxRuntimeSeconds: int(1), budgetUnits: int(0) }),
  },
  ['executionId', 'fence', 'generation', 'attempt', 'occurrenceId', 'triggerId', 'missionId', 'ancestry', 'limits'],
);
export const completed = obj(
  {
    executionId: str(),
    status: str(),
    outcome: oneOfStrings(['succeeded', 'failed']),
    fence: int(0),
    position: POSITION,
  },
  ['executionId', 'status', 'outcome', 'position'],
);
export const settled = obj(
  {
    executionId: str(),
    position: POSITION,
    decision: oneOfStrings(['committed', 'noncommitted']),
    receipt: anyJson('committed: exactly the receipt the consumer completed with (null when it sent none)'),
    completion: obj(
      {
        fence: int(1),
        outcome: oneOfStrings(['succeeded', 'failed']),
        completedAt: INSTANT,
      },
      ['fence', 'outcome', 'completedAt'],
      { description: 'committed: the completion the settlement lost to' },
    ),
  },
  ['decision'],
);
export const recovered = obj({ executionId: str(), generation: int(1), status: oneOfStrings(['pending']) }, [
  'executionId',
  'generation',
  'status',
]);

/** OP-4: one part of /health/ready (terminus' shape): `up`, `degraded` (still ready) or `down`, with its details. */
const readinessPart = (properties: Record<string, SchemaObject>, description: string) =>
  obj({ status: oneOfStrings(['up', 'degraded', 'down']), ...properties }, ['status'], { description });
export const readiness = obj(
  {
    status: oneOfStrings(['ok', 'degraded']),
    info: obj({
      store: readinessPart({ kind: str() }, 'the event store answers'),
      background: readinessPart({}, 'the background work runs and reached the log head seen at start'),
      subscriptions: readinessPart({ running: array(str()), failing: array(str()) }, 'background tasks'),
      projections: readinessPart(
        {
          lagEvents: {
            type: 'object',
            additionalProperties: int(0),
            description: 'per read model: log positions it trails the head by (reported; never makes it unready)',
          },
        },
        'read-model lag',
      ),
      wakeups: readinessPart({}, 'the wakeup transport (degraded while Redis is unreachable)'),
    }),
    error: jsonObject('the parts that are down (answered 503 not_ready)'),
    details: jsonObject('every part, as in info and error'),
  },
  ['status'],
);
