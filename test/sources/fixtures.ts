import type { NewEvent } from '../../src/domain/ports/event-store.js';
import { SourceRegistry } from '../../src/adapters/ingress/source-registry.js';
import type { MissionGrants } from '../../src/domain/mission/mission-grants.js';
import { isRejection } from '../../src/domain/shared/result.js';
import { CAPABILITIES } from '../../src/domain/trigger/trigger-authority.js';
import { initialTriggerState, triggerDecider } from '../../src/domain/trigger/trigger.js';
import { newKey, type TestApp } from '../support/app.js';

export const GRANTS: MissionGrants = {
  maxExecutionsPerHour: 100,
  maxConcurrent: 5,
  resourceScopes: ['repo:acme/*'],
  classification: 'confidential',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

/** HTTP shorthands for the Sources API; `token` defaults to tenant-a with every scope. */
export const sourcesApi = (t: TestApp) => ({
  put: (id: string, body: unknown, token?: string) =>
    t.request({ method: 'PUT', url: `/v1/sources/${id}`, key: newKey(), body, token }),
  get: (id: string, token?: string) => t.request({ method: 'GET', url: `/v1/sources/${id}`, token }),
  addKey: (id: string, body: unknown = {}, key = newKey(), token?: string) =>
    t.request({ method: 'POST', url: `/v1/sources/${id}/keys`, key, body, token }),
  retire: (id: string, keyId: string, token?: string) =>
    t.request({ method: 'DELETE', url: `/v1/sources/${id}/keys/${keyId}`, key: newKey(), token }),
  registry: () => t.app.get(SourceRegistry),
});

/**
 * A TriggerRevised exactly as the domain produces it for this definition (all capabilities claimed:
 * this deployment does not yet claim webhook initiation, so the API would refuse the revision).
 */
export function triggerRevised(options: {
  tenant: string;
  triggerId: string;
  revision: number;
  missionId?: string;
  sourceId?: string;
  eventTypes?: string[] | null;
  type?: 'webhook' | 'manual';
}): NewEvent {
  const {
    tenant,
    triggerId,
    revision,
    missionId = 'm-1',
    sourceId = 'gh',
    eventTypes = null,
    type = 'webhook',
  } = options;
  const definition =
    type === 'webhook'
      ? { missionId, type, source: { sourceId, ...(eventTypes ? { eventTypes } : {}) } }
      : { missionId, type };
  const decision = triggerDecider.decide(
    {
      type: 'ReviseTrigger',
      tenant,
      triggerId,
      definition,
      reason: 'test',
      actor: 'svc-test',
      at: '2026-03-01T10:00:00.000Z',
      mission: {
        status: 'defined',
        tenant,
        missionId,
        revision: 1,
        state: 'active',
        grants: GRANTS,
        updatedAt: '2026-03-01T10:00:00.000Z',
      },
      capabilities: Object.values(CAPABILITIES),
      pins: { tzdataVersion: 'test' },
    },
    initialTriggerState,
  );
  if (isRejection(decision) || decision[0]?.type !== 'TriggerRevised')
    throw new Error(`fixture trigger rejected: ${JSON.stringify(decision)}`);
  return { type: 'TriggerRevised', data: { ...decision[0].data, revision }, metadata: { tenant, actor: 'svc-test' } };
}

export const triggerDeleted = (tenant: string, triggerId: string, revision: number): NewEvent => ({
  type: 'TriggerDeleted',
  data: { tenant, triggerId, revision, reason: 'test', actor: 'svc-test', at: '2026-03-01T11:00:00.000Z' },
  metadata: { tenant, actor: 'svc-test' },
});
