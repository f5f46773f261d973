import type { PollLoop } from '../../src/adapters/poll/poll-loop.js';
import { PollSecretStore } from '../../src/adapters/poll/poll-secret-store.js';
import type { PollFailed } from '../../src/domain/poll/poll-events.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { PollUpstream } from '../support/poll-upstream.js';
import { makeDue, occurrencesOf, pollBlock, pollEvents, pollLoop } from './poll-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-poll-secret';
const DEPLOYMENT_KEY = 'poll-secret-test-deployment-key-0123456789';
/** Distinctive, so a search of stored rows and answers cannot miss it. */
const secret = (n: number) => `rvl_s3cr3t_${n}_${'Zq9x'.repeat(8)}`;

/**
 * PO-1 PO-4 and decision 7 for `poll.auth` bearer secrets, over HTTP against a real upstream: the upstream sees
 * the token, a rotation is used by the next poll, a missing secret is a PollFailed, and the secret is nowhere but
 * sealed in `poll_secrets`.
 */
export function pollSecretSuite(kind: StoreKind): void {
  describe(`PO-1 PO-4 poll bearer secrets (${kind})`, () => {
    let t: TestApp;
    let upstream: PollUpstream;
    let loop: PollLoop;
    let n = 0;
    const answers: unknown[] = [];

    beforeAll(async () => {
      upstream = await PollUpstream.start();
      t = await startTestApp(kind, { autostart: false, env: { REVEILLE_SECRET_KEY: DEPLOYMENT_KEY } });
      for (const tenant of [TENANT, 'tenant-b']) {
        const put = await t.request({
          method: 'PUT',
          url: `/v1/missions/${MISSION}`,
          token: await t.token({ tenant }),
          key: newKey(),
          body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 10 }) },
        });
        expect(put.status).toBe(200);
      }
      loop = pollLoop(t.infra.store, t.sql, { secrets: t.app.get(PollSecretStore) });
    });
    afterAll(async () => {
      await t?.close();
      await upstream?.close();
    });

    /** Every answer a test receives is kept, so the last test can search them all for a secret. */
    const request = async (options: Parameters<TestApp['request']>[0]) => {
      const response = await t.request(options);
      answers.push({ status: response.status, headers: response.headers, body: response.body });
      return response;
    };

    async function pollTrigger(
      extra: Record<string, unknown> = { auth: { type: 'bearer' } },
      tenant = TENANT,
    ): Promise<{ triggerId: string; path: string }> {
      const triggerId = `t-secret-${++n}`;
      const path = `/${tenant}/${triggerId}`;
      upstream.pages(path, {
        '': { items: [{ id: `${triggerId}-a` }], next: 'c1' },
        c1: { items: [{ id: `${triggerId}-b` }], next: 'c2' },
        c2: { items: [], next: null },
      });
      const put = await request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        token: await t.token({ tenant }),
        key: newKey(),
        body: { expectedRevision: 0, missionId: MISSION, type: 'poll', poll: pollBlock(upstream.url(path), extra) },
      });
      expect(put.status).toBe(200);
      await t.catchUp();
      return { triggerId, path };
    }

    const setSecret = async (triggerId: string, value: unknown, options: { tenant?: string; key?: string } = {}) =>
      request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}/poll-secret`,
        token: await t.token({ tenant: options.tenant ?? TENANT, scope: 'triggers:write' }),
        key: options.key ?? newKey(),
        body: { secret: value },
      });

    async function pollNow(triggerId: string, tenant = TENANT) {
      await makeDue(t.sql, tenant, triggerId);
      return loop.pollTrigger({ tenant, triggerId });
    }

    const pollView = async (triggerId: string) => {
      const view = await request({
        method: 'GET',
        url: `/v1/operator/triggers/${triggerId}/poll`,
        token: await t.token({ scope: 'operator:read' }),
      });
      expect(view.status).toBe(200);
      return view.body;
    };

    it('PO-1 the upstream sees Authorization: Bearer <secret>; a rotation is used by the next poll', async () => {
      const { triggerId, path } = await pollTrigger();
      const first = await setSecret(triggerId, secret(1));
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        triggerId,
        setAt: expect.any(String),
        replaced: false,
        position: expect.any(Number),
      });
      await pollNow(triggerId);
      expect(upstream.requestsTo(path).map((r) => r.authorization)).toEqual([`Bearer ${secret(1)}`]);

      const rotated = await setSecret(triggerId, secret(2));
      expect(rotated.status).toBe(200);
      expect(rotated.body.replaced).toBe(true);
      await pollNow(triggerId);
      expect(upstream.requestsTo(path).map((r) => [r.authorization, r.query.get('cursor')])).toEqual([
        [`Bearer ${secret(1)}`, null],
        [`Bearer ${secret(2)}`, 'c1'],
      ]);
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual([
        `${triggerId}-a`,
        `${triggerId}-b`,
      ]);
      // decision 7: the replaced secret's row is gone at once; one sealed row remains
      const { rows } = await t.sql.query<{ ciphertext: string }>(
        'SELECT ciphertext FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2',
        [TENANT, triggerId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.ciphertext).toMatch(/^enc:v1:/);
      const view = await pollView(triggerId);
      expect(view.secretSetAt).toBe(rotated.body.setAt);
      expect(view.cursor).toBe('c2');
    });

    it('PO-1 a poll Trigger without poll.auth sends no Authorization header, even with a secret set', async () => {
      const { triggerId, path } = await pollTrigger({});
      expect((await setSecret(triggerId, secret(3))).status).toBe(200);
      await pollNow(triggerId);
      expect(upstream.requestsTo(path).map((r) => r.authorization)).toEqual([null]);
    });

    it('PO-4 no secret, or a lost row: PollFailed secret_missing, nothing fetched, the cursor kept; setting it polls at once', async () => {
      const { triggerId, path } = await pollTrigger();
      // the cursor an operator set stays through the failures
      const cursor = await request({
        method: 'PUT',
        url: `/v1/operator/triggers/${triggerId}/poll-cursor`,
        token: await t.token({ scope: 'operator:recover' }),
        key: newKey(),
        body: { cursor: 'c1', reason: 'start at the second page' },
      });
      expect(cursor.status).toBe(200);
      const missing = await pollNow(triggerId);
      expect(missing?.events.map((e) => e.type)).toEqual(['PollFailed']);
      const failed = missing!.events[0] as PollFailed;
      expect(failed.data.cursor).toBe('c1');
      expect(failed.data.failure).toEqual({ kind: 'secret_missing', detail: expect.stringContaining('poll-secret') });
      expect(upstream.requestsTo(path)).toHaveLength(0);
      expect(await occurrencesOf(t.sql, TENANT, triggerId)).toEqual([]);
      await t.catchUp();
      expect(await pollView(triggerId)).toMatchObject({
        cursor: 'c1',
        lastResult: 'failed',
        consecutiveFailures: 1,
        lastError: { kind: 'secret_missing' },
        secretSetAt: null,
      });
      // the failure backed the next poll off; setting the secret brings it forward to now (one poll, no burst)
      expect(await dueNow(triggerId)).toBe(false);
      expect((await setSecret(triggerId, secret(4))).status).toBe(200);
      expect(await dueNow(triggerId)).toBe(true);
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      expect(upstream.requestsTo(path).map((r) => [r.authorization, r.query.get('cursor')])).toEqual([
        [`Bearer ${secret(4)}`, 'c1'],
      ]);

      // a row lost beside the log (or sealed under another key) is the same failure, never an unauthenticated GET
      await t.sql.query('DELETE FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2', [TENANT, triggerId]);
      const lost = await pollNow(triggerId);
      const lostFailure = lost!.events[0] as PollFailed;
      expect([lostFailure.type, lostFailure.data.failure.kind, lostFailure.data.cursor]).toEqual([
        'PollFailed',
        'secret_missing',
        'c2',
      ]);
      expect(upstream.requestsTo(path)).toHaveLength(1);
    });

    it('PO-1 SEC-2 a revision naming another host does not carry the secret there: secret_missing until it is set for the new host', async () => {
      const { triggerId, path } = await pollTrigger();
      expect((await setSecret(triggerId, secret(5))).status).toBe(200);
      // Whoever may revise the Trigger may not read its secret: the same upstream under another origin stands
      // for a host of theirs.
      const elsewhere = upstream.url(path).replace('127.0.0.1', 'localhost');
      const revised = await request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        token: await t.token({ tenant: TENANT }),
        key: newKey(),
        body: { missionId: MISSION, type: 'poll', poll: pollBlock(elsewhere, { auth: { type: 'bearer' } }) },
      });
      expect(revised.status).toBe(200);
      await t.catchUp();
      const refused = await pollNow(triggerId);
      expect(refused?.events.map((e) => e.type)).toEqual(['PollFailed']);
      expect((refused!.events[0] as PollFailed).data.failure).toEqual({
        kind: 'secret_missing',
        detail: expect.stringContaining('set it again for the new host'),
      });
      expect(upstream.requestsTo(path)).toHaveLength(0);

      expect((await setSecret(triggerId, secret(6))).status).toBe(200);
      await pollNow(triggerId);
      expect(upstream.requestsTo(path).map((r) => r.authorization)).toEqual([`Bearer ${secret(6)}`]);
    });

    async function dueNow(triggerId: string): Promise<boolean> {
      const { rows } = await t.sql.query<{ due: boolean }>(
        'SELECT next_poll_at <= statement_timestamp() AS due FROM poll_due WHERE tenant = $1 AND trigger_id = $2',
        [TENANT, triggerId],
      );
      return rows[0]!.due;
    }

    it('SEC-2 SEC-3 SEC-4 hostile: oversize or header-breaking secrets, another tenant, a non-poll Trigger, no scope, no key', async () => {
      const { triggerId } = await pollTrigger();
      const before = await pollEvents(t.infra.store, TENANT, triggerId);
      const oversize = await setSecret(triggerId, 'A'.repeat(4097));
      expect([oversize.status, oversize.body.code]).toEqual([400, 'BAD_REQUEST']);
      // a newline or a space would split or extend the Authorization header
      for (const bad of [`${secret(5)}\r\nX-Evil: 1`, `${secret(5)} extra`, '', 42, null]) {
        const refused = await setSecret(triggerId, bad);
        expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
        expect(JSON.stringify(refused.body)).not.toContain(secret(5));
      }
      // SEC-2: another tenant's Trigger is the same 404 as a missing one, and nothing of it moves
      const foreign = await pollTrigger(undefined, 'tenant-b');
      const foreignBefore = await pollEvents(t.infra.store, 'tenant-b', foreign.triggerId);
      const cross = await setSecret(foreign.triggerId, secret(6));
      expect([cross.status, cross.body.code]).toEqual([404, 'not_found']);
      expect(await pollEvents(t.infra.store, 'tenant-b', foreign.triggerId)).toEqual(foreignBefore);
      expect((await setSecret('no-such-trigger', secret(6))).status).toBe(404);
      // a manual Trigger has no polls to authenticate
      const manual = await request({
        method: 'PUT',
        url: '/v1/triggers/t-secret-manual',
        key: newKey(),
        body: { expectedRevision: 0, missionId: MISSION, type: 'manual' },
      });
      expect(manual.status).toBe(200);
      const notPoll = await setSecret('t-secret-manual', secret(7));
      expect([notPoll.status, notPoll.body.code]).toEqual([409, 'trigger_not_poll']);
      const noScope = await request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}/poll-secret`,
        token: await t.token({ scope: 'operator:read operator:recover' }),
        key: newKey(),
        body: { secret: secret(8) },
      });
      expect([noScope.status, noScope.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
      const noKey = await request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}/poll-secret`,
        token: await t.token({ scope: 'triggers:write' }),
        body: { secret: secret(8) },
      });
      expect([noKey.status, noKey.body.code]).toEqual([400, 'idempotency_key_required']);
      // nothing refused was recorded or stored
      expect(await pollEvents(t.infra.store, TENANT, triggerId)).toEqual(before);
      const { rows } = await t.sql.query('SELECT 1 FROM poll_secrets WHERE trigger_id = ANY($1::text[])', [
        [triggerId, foreign.triggerId, 't-secret-manual'],
      ]);
      expect(rows).toHaveLength(0);
      // a secret written into the definition itself is refused: it would be in the log
      const inline = await request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: {
          missionId: MISSION,
          type: 'poll',
          poll: pollBlock(upstream.url('/x'), { auth: { type: 'bearer', secret: secret(9) } }),
        },
      });
      expect([inline.status, inline.body.errors]).toEqual([
        422,
        [{ pointer: '/poll/auth/secret', message: 'unknown member "secret"' }],
      ]);
    });

    it('SEC-3 a replayed set answers the same without the secret, and sets nothing again', async () => {
      const { triggerId } = await pollTrigger();
      const key = newKey();
      const first = await setSecret(triggerId, secret(10), { key });
      const replay = await setSecret(triggerId, secret(10), { key });
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotency-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      const other = await setSecret(triggerId, secret(11), { key });
      expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_conflict']);
      const sets = (await pollEvents(t.infra.store, TENANT, triggerId)).filter((e) => e.type === 'PollSecretSet');
      expect(sets).toHaveLength(1);

      // decision 9: a crash between commit and answer leaves the key in flight, its holder gone, no answer stored
      const crashed = newKey();
      const committed = await setSecret(triggerId, secret(11), { key: crashed });
      await t.sql.query(
        `UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, response_body = NULL,
           lease_until = now() - interval '1 minute', holder = NULL WHERE key = $1`,
        [crashed],
      );
      const retry = await setSecret(triggerId, secret(11), { key: crashed });
      expect([retry.status, retry.headers['idempotency-replayed']]).toEqual([200, 'true']);
      expect(retry.body).toEqual(committed.body);
      const after = (await pollEvents(t.infra.store, TENANT, triggerId)).filter((e) => e.type === 'PollSecretSet');
      expect(after).toHaveLength(2);
    });

    it('decision 7 no secret in the events table, the idempotency records, an Occurrence, a view or any answer; sealed at rest', async () => {
      const { triggerId } = await pollTrigger();
      expect((await setSecret(triggerId, secret(12))).status).toBe(200);
      await pollNow(triggerId);
      await t.catchUp();
      const operator = await t.token({ scope: 'operator:read' });
      for (const url of [
        `/v1/triggers/${triggerId}`,
        `/v1/triggers/${triggerId}/revisions`,
        `/v1/operator/triggers/${triggerId}`,
        `/v1/operator/triggers/${triggerId}/poll`,
        `/v1/operator/occurrences?triggerId=${triggerId}`,
      ])
        expect(
          (await request({ method: 'GET', url, token: url.includes('operator') ? operator : undefined })).status,
        ).toBe(200);
      const audit = await request({
        method: 'GET',
        url: '/v1/audit/events?limit=500',
        token: await t.token({ scope: 'audit:read' }),
      });
      expect(audit.status).toBe(200);
      const everySecret = Array.from({ length: 12 }, (_, i) => secret(i + 1));
      const stored = async (table: string) =>
        JSON.stringify((await t.sql.query(`SELECT to_jsonb(x)::text AS row FROM ${table} x`)).rows);
      const events = await stored('events');
      expect(events).toContain('PollSecretSet');
      for (const [where, text] of [
        ['events', events],
        ['idempotency_keys', await stored('idempotency_keys')],
        ['rm_polls', await stored('rm_polls')],
        ['rm_occurrences', await stored('rm_occurrences')],
        ['poll_secrets', await stored('poll_secrets')],
        ['answers', JSON.stringify(answers)],
      ])
        for (const value of everySecret)
          expect(`${where}: ${text.includes(value) ? value : 'absent'}`).toBe(`${where}: absent`);
    });
  });
}
