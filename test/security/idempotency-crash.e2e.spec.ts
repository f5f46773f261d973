import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import { UpcasterRegistry } from '../../src/adapters/eventstore/upcasters.js';
import { executionStream, missionStream, sourceStream } from '../../src/domain/shared/ids.js';
import { AppendSignal } from '../../src/projections/runner/append-signal.js';
import { type ServeProcess, startServe } from '../support/serve-process.js';

const MISSION = {
  expectedRevision: 0,
  state: 'active',
  grants: {
    maxExecutionsPerHour: 100,
    maxConcurrent: 2,
    resourceScopes: ['repo:acme/*'],
    classification: 'internal',
    acceptLowerTrust: false,
    maxCausalDepth: 2,
  },
};
const FIRE = { input: { n: 1 }, resourceRefs: ['repo:acme/api'] };

/** Keys with this prefix kill the server right after their command committed, before the answer is stored. */
const CRASH = 'crash-';

describe.each(['postgres', 'pglite'] as const)(
  'SEC-3 WH-7 a retry after a crash between commit and answer replays, on %s',
  (store) => {
    let serve: ServeProcess;

    beforeAll(async () => {
      serve = await startServe({
        store,
        background: 'on',
        scope: 'missions:write sources:write triggers:write occurrences:write executions:write operator:read',
        env: { REVEILLE_TEST_ONLY_CRASH_AFTER_COMMIT: CRASH },
      });
    }, 120_000);
    afterAll(() => serve?.close());

    /** The request whose answer the crash swallowed: the server is gone before it answers. */
    const crashingCall = async (method: string, path: string, body: unknown, key: string) => {
      const exited = new Promise((resolve) => serve.child.once('exit', (_, signal) => resolve(signal)));
      await expect(serve.call(method, path, body, { key })).rejects.toThrow();
      expect(await exited).toBe('SIGKILL');
      await serve.restart();
    };

    const eventsOf = async (stream: string) =>
      store === 'postgres'
        ? new SqlEventStore(serve.sql, new UpcasterRegistry(), new AppendSignal()).readStream(stream)
        : null;

    it('a keyed PUT of a definition answers 200 with its one revision, never revision_conflict', async () => {
      await crashingCall('PUT', '/v1/missions/m-crash', MISSION, `${CRASH}mission`);

      // At once, not after the 60 s lease: the process that held the key is gone
      const retry = await serve.call('PUT', '/v1/missions/m-crash', MISSION, { key: `${CRASH}mission` });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.body).toMatchObject({ missionId: 'm-crash', revision: 1 });

      const events = await eventsOf(missionStream('acme', 'm-crash'));
      if (events) {
        expect(events.map((e) => e.type)).toEqual(['MissionRevised']);
        expect(retry.body.position).toBe(events[0]!.position);
        expect(events[0]!.metadata).toMatchObject({ idempotencyKey: `${CRASH}mission` });
      }
      const read = await serve.call('GET', '/v1/missions/m-crash');
      expect(read.body.revision).toBe(1);

      // The answer is stored now: the next retry replays it without running anything
      const again = await serve.call('PUT', '/v1/missions/m-crash', MISSION, { key: `${CRASH}mission` });
      expect(again).toMatchObject({ status: 200, body: retry.body });
      expect(again.headers.get('idempotency-replayed')).toBe('true');
    }, 120_000);

    it('a manual fire answers 202 with its one Occurrence, and a new key still fires again', async () => {
      const trigger = await serve.call('PUT', '/v1/triggers/t-crash', {
        expectedRevision: 0,
        missionId: 'm-crash',
        type: 'manual',
      });
      expect(trigger.status).toBe(200);
      await crashingCall('POST', '/v1/triggers/t-crash/occurrences', FIRE, `${CRASH}fire`);

      const retry = await serve.call('POST', '/v1/triggers/t-crash/occurrences', FIRE, { key: `${CRASH}fire` });
      expect(retry.status).toBe(202);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.body).toEqual({
        occurrenceId: expect.any(String),
        status: 'observed',
        position: expect.any(Number),
      });

      const other = await serve.call('POST', '/v1/triggers/t-crash/occurrences', FIRE, { key: 'another-fire' });
      expect(other.status).toBe(202);
      expect(other.headers.get('idempotency-replayed')).toBeNull();
      expect(other.body.occurrenceId).not.toBe(retry.body.occurrenceId);

      const listed = await serve.call(
        'GET',
        `/v1/operator/occurrences?triggerId=t-crash&minPosition=${other.body.position}`,
      );
      expect(listed.status).toBe(200);
      expect(listed.body.stale).toBeFalsy();
      expect(listed.body.items.map((o: { occurrenceId: string }) => o.occurrenceId).sort()).toEqual(
        [retry.body.occurrenceId, other.body.occurrenceId].sort(),
      );
      // The position is the observation's, as the first answer would have said, even after admission wrote more
      const detail = await serve.call('GET', `/v1/operator/occurrences/${retry.body.occurrenceId}`);
      expect(detail.status).toBe(200);

      const again = await serve.call('POST', '/v1/triggers/t-crash/occurrences', FIRE, { key: `${CRASH}fire` });
      expect(again).toMatchObject({ status: 202, body: retry.body });
    }, 120_000);

    it('WH-3 a key creation without a key id answers its key again (secret null), never a second key', async () => {
      expect((await serve.call('PUT', '/v1/sources/s-crash', { scheme: 'standard-webhooks' })).status).toBe(200);
      await crashingCall('POST', '/v1/sources/s-crash/keys', {}, `${CRASH}key`);

      const retry = await serve.call('POST', '/v1/sources/s-crash/keys', {}, { key: `${CRASH}key` });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.body).toMatchObject({ sourceId: 's-crash', keyId: expect.any(String), generation: 1, secret: null });
      const source = await serve.call('GET', '/v1/sources/s-crash');
      expect(source.body.keys.map((k: { keyId: string }) => k.keyId)).toEqual([retry.body.keyId]);
      const events = await eventsOf(sourceStream('acme', 's-crash'));
      if (events) expect(events.map((e) => e.type)).toEqual(['SourceRevised', 'SourceKeyAdded']);
    }, 120_000);

    it('EX-2 a claim answers its fence again, and takes no second claim', async () => {
      const fired = await serve.call('POST', '/v1/triggers/t-crash/occurrences?wait=decision', FIRE);
      expect(fired).toMatchObject({ status: 200, body: { status: 'admitted' } });
      const { executionId } = fired.body as { executionId: string };
      const claimPath = `/v1/executions/${executionId}/claim`;
      await crashingCall('POST', claimPath, { consumerId: 'worker-1' }, `${CRASH}claim`);

      const retry = await serve.call('POST', claimPath, { consumerId: 'worker-1' }, { key: `${CRASH}claim` });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.body).toMatchObject({ executionId, fence: 1, generation: 1 });

      const events = await eventsOf(executionStream(executionId));
      if (events) expect(events.map((e) => e.type)).toEqual(['ExecutionClaimed']);
      const rival = await serve.call('POST', claimPath, { consumerId: 'worker-2' });
      expect(rival).toMatchObject({ status: 409, body: { code: 'already_claimed' } });
      const completed = await serve.call('POST', `/v1/executions/${executionId}/complete`, {
        fence: 1,
        outcome: 'succeeded',
      });
      expect(completed.status).toBe(200);
    }, 120_000);

    it('EX-2 a claim-next retried after the crash answers the execution it claimed, and claims no second one', async () => {
      for (let i = 0; i < 2; i++) {
        const fired = await serve.call('POST', '/v1/triggers/t-crash/occurrences?wait=decision', FIRE);
        expect(fired).toMatchObject({ status: 200, body: { status: 'admitted' } });
      }
      const claimNext = { consumerId: 'worker-3', triggerId: 't-crash' };
      await crashingCall('POST', '/v1/executions/claim-next', claimNext, `${CRASH}claim-next`);

      const retry = await serve.call('POST', '/v1/executions/claim-next', claimNext, { key: `${CRASH}claim-next` });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.body).toMatchObject({ fence: 1 });
      // What worker-3 holds is that one execution: the retry claimed nothing more, and the rest is still pending.
      const claimed = await serve.call('GET', '/v1/executions?triggerId=t-crash&status=claimed');
      const held = claimed.body.items.filter(
        (row: { claim: { consumerId: string } | null }) => row.claim?.consumerId === 'worker-3',
      );
      expect(held.map((row: { executionId: string }) => row.executionId)).toEqual([retry.body.executionId]);
      const other = await serve.call('POST', '/v1/executions/claim-next', {
        consumerId: 'worker-4',
        triggerId: 't-crash',
      });
      expect(other.status).toBe(200);
      expect(other.body.executionId).not.toBe(retry.body.executionId);
      const events = await eventsOf(executionStream(retry.body.executionId));
      if (events) expect(events.map((e) => e.type)).toEqual(['ExecutionClaimed']);
    }, 120_000);
  },
);
