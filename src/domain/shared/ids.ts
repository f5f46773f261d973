import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

const REMEMBERED_IDS = 20_000;
/** The same ids are hashed again and again (a claim names its Mission's 32 slot stripes): the oldest is forgotten first. */
const remembered = new Map<string, string>();

/** Outside ids are hashed, never concatenated raw, so `("a-b", "c")` and `("a", "b-c")` never share a stream. */
export function hashId(...parts: string[]): string {
  const key = JSON.stringify(parts);
  let hash = remembered.get(key);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(parts), 'utf8').digest('hex');
    if (remembered.size >= REMEMBERED_IDS) remembered.delete(remembered.keys().next().value!);
    remembered.set(key, hash);
  }
  return hash;
}

export const missionStream = (tenant: string, missionId: string): string => `mission-${hashId(tenant, missionId)}`;

export const triggerStream = (tenant: string, triggerId: string): string => `trigger-${hashId(tenant, triggerId)}`;

/** SC-3/SC-5: the materializer's decisions for one schedule Trigger (boundary, skipped, held, released). */
export const scheduleStream = (tenant: string, triggerId: string): string => `schedule-${hashId(tenant, triggerId)}`;

export const sourceStream = (tenant: string, sourceId: string): string => `source-${hashId(tenant, sourceId)}`;

/** `identityHash` is already a SHA-256 over the tenant-scoped dedupe identity (DD-1, OC-3). */
export const occurrenceStream = (identityHash: string): string => `occurrence-${identityHash}`;

export const budgetStream = (tenant: string, missionId: string, windowStartIso: string): string =>
  `budget-${hashId(tenant, missionId, windowStartIso)}`;

/** Execution ids reach us in URLs (claim, complete), so they are hashed like every outside id. */
export const executionStream = (executionId: string): string => `execution-${hashId(executionId)}`;

/** AD-2: the slots of a Mission's non-terminal executions, stripe 0 of them (state in every event). */
export const concurrencyStream = (tenant: string, missionId: string): string =>
  `concurrency-${hashId(tenant, missionId)}`;

/** AD-2: one stripe of a Mission's slots; stripe 0 is the stream slots had before they were striped. */
export const concurrencyStripeStream = (tenant: string, missionId: string, stripe: number): string =>
  stripe === 0 ? concurrencyStream(tenant, missionId) : `${concurrencyStream(tenant, missionId)}.${stripe}`;

/** BA-3: the running execution of one Trigger that skips overlaps (state in every event). */
export const overlapStream = (tenant: string, triggerId: string): string => `overlap-${hashId(tenant, triggerId)}`;

/** AD-4 `unchanged@1`: the last admitted digest of one resource of one Trigger (the key is the resource's canonical JSON). */
export const baselineStream = (tenant: string, triggerId: string, resourceKey: string): string =>
  `baseline-${hashId(tenant, triggerId, resourceKey)}`;

/**
 * DD-5: the coalescing groups of one Trigger, Mission, rule and resource (canonical JSON), one open at a time
 * (state in every event).
 */
export const coalesceStream = (
  tenant: string,
  triggerId: string,
  missionId: string,
  rule: number,
  resourceKey: string,
): string => `coalesce-${hashId(tenant, triggerId, missionId, String(rule), resourceKey)}`;

/** PO-1..PO-4: one poll Trigger's cursor and every poll's dispositions (state in every event). */
export const pollStream = (tenant: string, triggerId: string): string => `poll-${hashId(tenant, triggerId)}`;

/**
 * BA-1: the batches of one partition of one Trigger revision, one after another (a batch belongs to the revision
 * that accepted its members, so a revision never rebinds open work). The key is the partition's canonical JSON.
 */
export const batchStream = (tenant: string, triggerId: string, triggerRevision: number, partitionKey: string): string =>
  `batch-${hashId(tenant, triggerId, String(triggerRevision), partitionKey)}`;
/** CA-2: the correlation index, one stream per (tenant, source, correlation key): the Operation that reserved it. */
export const correlationStream = (tenant: string, sourceId: string, key: string): string =>
  `correlation-${hashId(tenant, sourceId, key)}`;
/** SU-1: a Trigger's or a source's wait-for subscriptions, where their matches and deadlines serialize. */
export const waitForStream = (tenant: string, kind: 'trigger' | 'source', id: string): string =>
  `waitfor-${hashId(tenant, kind, id)}`;
