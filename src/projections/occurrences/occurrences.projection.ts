import type { RecordedEvent } from '../../domain/ports/event-store.js';
import type { SqlQuery } from '../sql-client.js';
import {
  type DeliveryConflictRecorded,
  OCCURRENCE_PAYLOAD_PATHS,
  type OccurrenceAdmitted,
  type OccurrenceBatched,
  type OccurrenceBlocked,
  type OccurrenceCoalesced,
  type OccurrenceEvent,
  type OccurrenceObserved,
  type OccurrenceSubscribed,
  type OccurrenceSuppressed,
} from '../../domain/occurrence/occurrence-events.js';
import type { Projection } from '../runner/projection.js';
import { statementProjection } from '../runner/statement-projection.js';
import { msSql } from './cursor.js';
import { occurrencesMigrations } from './occurrences.migrations.js';
import { conflict, json, MOVE_UNDECIDED, movingUndecided, ROW } from './occurrences.sql.js';

export const OCCURRENCES_PROJECTION = 'occurrences';

const HANDLES: readonly OccurrenceEvent['type'][] = [
  'OccurrenceObserved',
  'OccurrenceAdmitted',
  'OccurrenceBlocked',
  'OccurrenceSuppressed',
  'OccurrenceBatched',
  'OccurrenceSubscribed',
  'OccurrenceCoalesced',
  'DeliveryConflictRecorded',
];

function observed(event: RecordedEvent<OccurrenceObserved['data']>): SqlQuery[] {
  const o = event.data;
  const auth = { state: o.auth.state, sourceId: o.auth.sourceId ?? null, keyId: o.auth.keyId ?? null };
  const evidence = { payloadDigest: o.payloadDigest, resourceRefs: o.resourceRefs, classification: o.classification };
  return [
    {
      // First delivery wins (OC-3); a replayed event finds the row and changes nothing.
      text: movingUndecided(
        `INSERT INTO rm_occurrences AS o (tenant, occurrence_id, trigger_id, trigger_revision, mission_id, kind, status, auth,
           external_id, observed_at, scheduled_at, dedupe_identity, causal, evidence, last_position)
         VALUES ($1, $2, $3, $4, $5, $6, 'observed', $7::jsonb, $8, ${msSql('$9')}, ${msSql('$10')}, $11::jsonb, $12::jsonb, $13::jsonb, $14)
         ON CONFLICT (tenant, occurrence_id) DO NOTHING`,
        1,
      ),
      values: [
        o.tenant,
        o.occurrenceId,
        o.triggerId,
        o.triggerRevision,
        o.missionId,
        o.kind,
        json(auth),
        o.externalId,
        o.observedAt,
        o.scheduledAt,
        json(o.dedupeIdentity),
        json(o.causal),
        json(evidence),
        event.position,
      ],
    },
  ];
}

/**
 * AD-4: what the prefilters found on an admission (a first sighting's `baseline: null`); DD-5: the members of
 * the coalesced group it stands for. Else nothing.
 */
const admittedEvidenceOf = (d: Partial<OccurrenceAdmitted['data']>): Record<string, unknown> | null =>
  d.prefilters || d.members
    ? { ...(d.prefilters ? { prefilters: d.prefilters } : {}), ...(d.members ? { members: d.members } : {}) }
    : null;
const admittedEvidence = (d: Partial<OccurrenceAdmitted['data']>): string | null => {
  const evidence = admittedEvidenceOf(d);
  return evidence ? json(evidence) : null;
};

/** Decided once (AD-1): only an observed row changes, so a replay rewrites nothing. */
function admitted(event: RecordedEvent<OccurrenceAdmitted['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: movingUndecided(
        `UPDATE rm_occurrences o SET status = 'admitted', execution_id = $3, fired_at = ${msSql('$4')}, decided_at = ${msSql('$5')}, last_position = $6,
                decision_evidence = $7::jsonb
          WHERE ${ROW} AND status = 'observed'`,
        -1,
      ),
      values: [
        d.occurrenceId,
        event.metadata.tenant ?? null,
        d.executionId,
        d.firedAt,
        d.decidedAt,
        event.position,
        admittedEvidence(d),
      ],
    },
  ];
}

/** BA-1: a member of a closed batch, decided `batched` with the batch's execution (evidence: the batch). */
function batched(event: RecordedEvent<OccurrenceBatched['data']>): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: movingUndecided(
        `UPDATE rm_occurrences o SET status = 'batched', execution_id = $3, decided_at = ${msSql('$4')}, last_position = $5,
                decision_evidence = $6::jsonb
          WHERE ${ROW} AND status = 'observed'`,
        -1,
      ),
      values: [
        d.occurrenceId,
        event.metadata.tenant ?? null,
        d.executionId,
        d.decidedAt,
        event.position,
        json({
          batchId: d.batchId,
          ...(d.request?.members ? { members: d.request.members } : {}),
          ...(d.coalesced ? { coalesced: d.coalesced } : {}),
        }),
      ],
    },
  ];
}

/** Blocked, suppressed (BA-2, AD-4), coalesced (DD-5) or subscribed (SU-1, no reason): the evidence, no execution. */
function refused(event: RecordedEvent<RefusalData>, status: RefusalStatus): SqlQuery[] {
  const d = event.data;
  return [
    {
      text: movingUndecided(
        `UPDATE rm_occurrences o SET status = $7, reason = $3, decision_evidence = $4::jsonb, decided_at = ${msSql('$5')}, last_position = $6
          WHERE ${ROW} AND status = 'observed'`,
        -1,
      ),
      values: [
        d.occurrenceId,
        event.metadata.tenant ?? null,
        reasonOf(d),
        json(d.evidence),
        d.decidedAt,
        event.position,
        status,
      ],
    },
  ];
}

type RefusalData =
  OccurrenceBlocked['data'] | OccurrenceSuppressed['data'] | OccurrenceCoalesced['data'] | OccurrenceSubscribed['data'];
type RefusalStatus = 'blocked' | 'suppressed' | 'coalesced' | 'subscribed';
const REFUSAL_STATUS: Readonly<Record<string, RefusalStatus>> = {
  OccurrenceSuppressed: 'suppressed',
  OccurrenceCoalesced: 'coalesced',
  OccurrenceSubscribed: 'subscribed',
};
const refusalStatus = (type: string): RefusalStatus => REFUSAL_STATUS[type] ?? 'blocked';
const reasonOf = (d: RefusalData): string | null => ('reason' in d ? d.reason : null);

/** A decision without a row changes nothing: Observed comes first in its stream, so that means another tenant. */
export function evolveOccurrences(event: RecordedEvent): SqlQuery[] {
  switch (event.type as OccurrenceEvent['type']) {
    case 'OccurrenceObserved':
      return observed(event as RecordedEvent<OccurrenceObserved['data']>);
    case 'OccurrenceAdmitted':
      return admitted(event as RecordedEvent<OccurrenceAdmitted['data']>);
    case 'OccurrenceBlocked':
    case 'OccurrenceSuppressed':
    case 'OccurrenceSubscribed':
    case 'OccurrenceCoalesced':
      return refused(event as RecordedEvent<RefusalData>, refusalStatus(event.type));
    case 'DeliveryConflictRecorded':
      return conflict(event as RecordedEvent<DeliveryConflictRecorded['data']>);
    case 'OccurrenceBatched':
      return batched(event as RecordedEvent<OccurrenceBatched['data']>);
    default:
      return [];
  }
}

const OBSERVED_COLUMNS = `tenant text, occurrence_id text, trigger_id text, trigger_revision int, mission_id text, kind text, auth jsonb, external_id text,
  observed_at timestamptz, scheduled_at timestamptz, dedupe_identity jsonb, causal jsonb, evidence jsonb, last_position bigint,
  status text, reason text, decision_evidence jsonb, execution_id text, fired_at timestamptz, decided_at timestamptz, ord int`;

/** `= ANY(...)` finds the rows by index: joined to the batch alone, the planner may scan every row instead. */
const STILL_OBSERVED_ROW_OF_X = `WHERE o.occurrence_id = ANY(ARRAY(SELECT jsonb_array_elements($1::jsonb)->>'occurrence_id'))
                AND o.occurrence_id = x.occurrence_id AND o.tenant = COALESCE(x.tenant, o.tenant) AND o.status = 'observed'`;

type Decision = RecordedEvent<OccurrenceAdmitted['data']> | RecordedEvent<RefusalData>;
const isDecision = (e: RecordedEvent): e is Decision =>
  e.type === 'OccurrenceAdmitted' ||
  e.type === 'OccurrenceBlocked' ||
  e.type === 'OccurrenceSuppressed' ||
  e.type === 'OccurrenceSubscribed' ||
  e.type === 'OccurrenceCoalesced';

function decidedColumns(decision: Decision) {
  const d = decision.data as Partial<
    OccurrenceAdmitted['data'] & OccurrenceBlocked['data'] & OccurrenceSubscribed['data']
  >;
  return decision.type === 'OccurrenceAdmitted'
    ? {
        status: 'admitted',
        reason: null,
        decision_evidence: admittedEvidenceOf(d),
        execution_id: d.executionId,
        fired_at: d.firedAt,
        decided_at: d.decidedAt,
      }
    : {
        status: refusalStatus(decision.type),
        reason: d.reason ?? null,
        decision_evidence: d.evidence ?? null,
        execution_id: null,
        fired_at: null,
        decided_at: d.decidedAt,
      };
}

/**
 * Under load most Occurrences are decided within the batch that observes them, so a decision paired with its
 * observation in the run is written once, already decided, instead of inserted and then updated.
 */
function pairDecisions(
  observed: RecordedEvent<OccurrenceObserved['data']>[],
  decisions: Decision[],
): { decisionOf: Map<RecordedEvent, Decision>; unpaired: Decision[] } {
  const firstSeen = new Map<string, RecordedEvent<OccurrenceObserved['data']>>();
  for (const o of observed) {
    const key = `${o.data.tenant}\u0000${o.data.occurrenceId}`;
    if (!firstSeen.has(key)) firstSeen.set(key, o);
  }
  const byId = new Map<string, RecordedEvent<OccurrenceObserved['data']>[]>();
  for (const o of firstSeen.values()) byId.set(o.data.occurrenceId, [...(byId.get(o.data.occurrenceId) ?? []), o]);
  const decisionOf = new Map<RecordedEvent, Decision>();
  const unpaired: Decision[] = [];
  for (const decision of decisions) {
    const tenant = decision.metadata.tenant ?? null;
    const own = (byId.get(decision.data.occurrenceId) ?? []).filter((o) => tenant === null || o.data.tenant === tenant);
    if (own.length === 1 && own[0]!.position < decision.position && !decisionOf.has(own[0]!))
      decisionOf.set(own[0]!, decision);
    else unpaired.push(decision);
  }
  return { decisionOf, unpaired };
}

/**
 * One statement per kind, equal to folding one by one because an Occurrence is observed before it is decided,
 * and decided once (OC-3, AD-1). Conflict events depend on log order, so they end a run.
 */
function evolveRun(run: RecordedEvent[]): SqlQuery[] {
  const statements: SqlQuery[] = [];
  const observed = run.filter((e) => e.type === 'OccurrenceObserved') as RecordedEvent<OccurrenceObserved['data']>[];
  const { decisionOf, unpaired } = pairDecisions(observed, run.filter(isDecision));
  if (observed.length > 0) {
    const rows = observed.map((event, ord) => {
      const { data: o, position } = event;
      const decision = decisionOf.get(event);
      return {
        tenant: o.tenant,
        occurrence_id: o.occurrenceId,
        trigger_id: o.triggerId,
        trigger_revision: o.triggerRevision,
        mission_id: o.missionId,
        kind: o.kind,
        auth: { state: o.auth.state, sourceId: o.auth.sourceId ?? null, keyId: o.auth.keyId ?? null },
        external_id: o.externalId,
        observed_at: o.observedAt,
        scheduled_at: o.scheduledAt,
        dedupe_identity: o.dedupeIdentity ?? null,
        causal: o.causal ?? null,
        evidence: { payloadDigest: o.payloadDigest, resourceRefs: o.resourceRefs, classification: o.classification },
        ...(decision
          ? { ...decidedColumns(decision), last_position: decision.position }
          : { status: 'observed', last_position: position }),
        ord,
      };
    });
    statements.push({
      // A row already there (a replayed batch) takes the paired decision only while still observed, as the
      // update would; an observation alone changes nothing (the first delivery wins).
      text: `WITH x AS (
               SELECT DISTINCT ON (tenant, occurrence_id) * FROM jsonb_to_recordset($1::jsonb) AS x(${OBSERVED_COLUMNS}) ORDER BY tenant, occurrence_id, ord),
             before AS (
               SELECT o.tenant, o.occurrence_id FROM rm_occurrences o
                WHERE o.occurrence_id = ANY(ARRAY(SELECT occurrence_id FROM x)) AND o.status = 'observed'),
             ins AS (
               INSERT INTO rm_occurrences (tenant, occurrence_id, trigger_id, trigger_revision, mission_id, kind, status, auth,
                 external_id, observed_at, scheduled_at, dedupe_identity, causal, evidence, last_position,
                 reason, decision_evidence, execution_id, fired_at, decided_at)
               SELECT tenant, occurrence_id, trigger_id, trigger_revision, mission_id, kind, status, auth, external_id,
                      ${msSql('observed_at')}, ${msSql('scheduled_at')}, dedupe_identity, causal, evidence, last_position,
                      reason, decision_evidence, execution_id, ${msSql('fired_at')}, ${msSql('decided_at')}
                 FROM x
               ON CONFLICT (tenant, occurrence_id) DO UPDATE
                 SET status = EXCLUDED.status, reason = EXCLUDED.reason, decision_evidence = EXCLUDED.decision_evidence, execution_id = EXCLUDED.execution_id,
                     fired_at = EXCLUDED.fired_at, decided_at = EXCLUDED.decided_at, last_position = EXCLUDED.last_position
                 WHERE rm_occurrences.status = 'observed' AND EXCLUDED.status <> 'observed'
               RETURNING tenant, occurrence_id, auth->>'sourceId' AS source_id, status),
             -- a returned row that was there before was observed and is now decided; a new one counts while observed
             delta AS (
               SELECT i.tenant, i.source_id, CASE WHEN b.occurrence_id IS NOT NULL THEN -1 WHEN i.status = 'observed' THEN 1 ELSE 0 END AS n
                 FROM ins i LEFT JOIN before b ON b.tenant = i.tenant AND b.occurrence_id = i.occurrence_id)
             ${MOVE_UNDECIDED}`,
      values: [json(rows)],
    });
  }
  const admittedEvents = unpaired.filter((e) => e.type === 'OccurrenceAdmitted') as RecordedEvent<
    OccurrenceAdmitted['data']
  >[];
  if (admittedEvents.length > 0) {
    const rows = admittedEvents.map(({ data: d, metadata, position }) => ({
      occurrence_id: d.occurrenceId,
      tenant: metadata.tenant ?? null,
      execution_id: d.executionId,
      fired_at: d.firedAt,
      decided_at: d.decidedAt,
      evidence: admittedEvidenceOf(d),
      last_position: position,
    }));
    statements.push({
      text: movingUndecided(
        `UPDATE rm_occurrences o SET status = 'admitted', execution_id = x.execution_id, fired_at = ${msSql('x.fired_at')}, decided_at = ${msSql('x.decided_at')}, last_position = x.last_position,
                decision_evidence = x.evidence
           FROM jsonb_to_recordset($1::jsonb) AS x(occurrence_id text, tenant text, execution_id text, fired_at timestamptz, decided_at timestamptz, evidence jsonb, last_position bigint)
          ${STILL_OBSERVED_ROW_OF_X}`,
        -1,
      ),
      values: [json(rows)],
    });
  }
  const refusedEvents = unpaired.filter((e) => e.type !== 'OccurrenceAdmitted') as RecordedEvent<RefusalData>[];
  if (refusedEvents.length > 0) {
    const rows = refusedEvents.map(({ type, data: d, metadata, position }) => ({
      occurrence_id: d.occurrenceId,
      tenant: metadata.tenant ?? null,
      status: refusalStatus(type),
      reason: reasonOf(d),
      evidence: d.evidence ?? null,
      decided_at: d.decidedAt,
      last_position: position,
    }));
    statements.push({
      text: movingUndecided(
        `UPDATE rm_occurrences o SET status = x.status, reason = x.reason, decision_evidence = x.evidence, decided_at = ${msSql('x.decided_at')}, last_position = x.last_position
           FROM jsonb_to_recordset($1::jsonb) AS x(occurrence_id text, tenant text, status text, reason text, evidence jsonb, decided_at timestamptz, last_position bigint)
          ${STILL_OBSERVED_ROW_OF_X}`,
        -1,
      ),
      values: [json(rows)],
    });
  }
  return statements;
}

/** A batch's statements: runs folded set-based, conflict events one by one between them, in log order. */
export function evolveOccurrencesBatch(events: RecordedEvent[]): SqlQuery[] {
  const statements: SqlQuery[] = [];
  let run: RecordedEvent[] = [];
  for (const event of events) {
    // A batch's decisions come after their members' observations, in other runs: folded one by one (BA-1).
    if (event.type !== 'DeliveryConflictRecorded' && event.type !== 'OccurrenceBatched') {
      run.push(event);
      continue;
    }
    statements.push(...evolveRun(run), ...evolveOccurrences(event));
    run = [];
  }
  return [...statements, ...evolveRun(run)];
}

/** OP-2: the Occurrence explorer's rows. */
export const occurrencesProjection: Projection = statementProjection({
  name: OCCURRENCES_PROJECTION,
  handles: HANDLES,
  omitsData: OCCURRENCE_PAYLOAD_PATHS,
  migrations: occurrencesMigrations,
  tables: ['rm_occurrences', 'rm_occurrence_conflicts', 'rm_outstanding'],
  readIndexes: ['rm_occurrences_by_time', 'rm_occurrences_by_trigger'],
  evolve: evolveOccurrences,
  evolveBatch: evolveOccurrencesBatch,
});
