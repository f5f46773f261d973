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
  POSITION,
  str,
} from './schema.js';

/** Answers of the poll, ingress, audit and causality routes (api.md), beside answer-schemas.ts. */
export const stale = bool('read models behind ?minPosition: what they have');

const itemRef = { itemId: nullable(str()), index: int(0), reason: str() };
export const pollView = obj(
  {
    cursor: nullable(str()),
    lastPollAt: nullable(INSTANT),
    lastResult: nullable(oneOfStrings(['ok', 'failed', 'held'])),
    consecutiveFailures: int(0),
    lastError: nullable(jsonObject('the last PollFailed')),
    held: nullable(obj(itemRef, ['index', 'reason'])),
    quarantined: array(obj({ ...itemRef, at: INSTANT }, ['index', 'reason'])),
    secretSetAt: nullable({
      ...INSTANT,
      description: 'when the bearer secret polls send was last set; never the secret',
    }),
  },
  ['cursor', 'consecutiveFailures', 'quarantined', 'secretSetAt'],
);
export const pollSecretSet = obj(
  {
    triggerId: str(),
    setAt: INSTANT,
    replaced: bool('an earlier secret was replaced (a rotation); the next poll sends the new one'),
    position: POSITION,
  },
  ['triggerId', 'setAt', 'replaced', 'position'],
  { description: 'never the secret' },
);
export const pollCursorSet = obj(
  {
    triggerId: str(),
    cursor: nullable(str()),
    previous: nullable(str()),
    released: anyJson('the hold this released, if any'),
    position: POSITION,
  },
  ['triggerId', 'cursor', 'position'],
);

export const sourceIngress = obj(
  {
    sourceId: str(),
    counts: obj(
      {
        accepted: int(0),
        duplicate: int(0),
        ignored: int(0),
        refused: { type: 'object', additionalProperties: int(0), description: 'by reason' },
      },
      ['accepted', 'duplicate', 'ignored', 'refused'],
    ),
    lastAcceptedAt: nullable(INSTANT),
    lastIgnoredAt: nullable(INSTANT),
    lastRefusedAt: nullable(INSTANT),
    recentRefusals: array(obj({ reason: str(), status: int(400, 599), size: nullable(int(0)), at: INSTANT })),
  },
  ['sourceId', 'counts', 'recentRefusals'],
);

const auditEvent = obj(
  {
    position: int(1),
    streamId: str(),
    revision: int(0),
    type: str(),
    schemaVersion: int(1),
    data: jsonObject('the event (never a secret)'),
    metadata: jsonObject('tenant, actor, correlationId, causationId, recordedAt'),
    recordedAt: INSTANT,
    hash: str(),
    prevHash: nullable(str()),
  },
  ['position', 'streamId', 'revision', 'type', 'data', 'hash'],
);
export const auditFeed = obj({ events: array(auditEvent), next: nullable(int(0)), stale }, ['events', 'next']);
export const auditStream = obj({ streamId: str(), events: array(auditEvent), nextRevision: nullable(int(0)), stale }, [
  'streamId',
  'events',
]);

export const ingressAnswer = obj(
  {
    occurrences: array(
      obj({ triggerId: str(), occurrenceId: str(), status: oneOfStrings(['observed', 'duplicate']) }, [
        'triggerId',
        'occurrenceId',
        'status',
      ]),
    ),
  },
  ['occurrences'],
);

/** CA-2: an Operation recorded (or the same one again). */
export const operationRecorded = obj({ operationId: str(), position: POSITION }, ['operationId', 'position']);

/** OP-2: ancestors (the recorded chain, nearest first, bounded) and descendants (paginated by `nextCursor`). */
export const lineage = obj(
  {
    occurrenceId: str(),
    runsAs: str({
      description:
        'BA-1: a batch member: the Occurrence its execution is named after, whose Operations and descendants are shown',
    }),
    causal: obj({ parentId: nullable(str()), depth: int(0), ancestry: anyJson('the chain, or "unknown"') }, [
      'parentId',
      'depth',
    ]),
    ancestors: array(
      obj(
        {
          kind: oneOfStrings(['occurrence', 'operation']),
          occurrenceId: str(),
          operationId: str(),
          triggerId: str(),
          distance: int(1),
          status: nullable(str()),
          reason: nullable(str()),
        },
        ['kind', 'triggerId', 'distance'],
      ),
    ),
    operations: array(
      obj(
        {
          operationId: str(),
          executionId: str(),
          correlation: obj({ sourceId: str(), key: str() }, ['sourceId', 'key']),
          recordedAt: INSTANT,
        },
        ['operationId', 'executionId', 'correlation'],
      ),
    ),
    descendants: array(
      obj(
        {
          occurrenceId: str(),
          triggerId: str(),
          parentId: nullable(str()),
          depth: int(0),
          distance: int(1),
          status: nullable(str()),
          reason: nullable(str()),
          observedAt: nullable(INSTANT),
        },
        ['occurrenceId', 'triggerId', 'depth'],
      ),
    ),
    nextCursor: nullable(str()),
    stale,
  },
  ['occurrenceId', 'ancestors', 'descendants', 'nextCursor'],
);
