import { auditVerify } from '../../src/adapters/cli/audit-verify.js';
import type { PollLoop } from '../../src/adapters/poll/poll-loop.js';
import { PollSecretStore } from '../../src/adapters/poll/poll-secret-store.js';
import type { PollCompleted, PollFailed, PollState } from '../../src/domain/poll/poll-events.js';
import { until } from '../executions/retries.shared.js';
import { newKey, type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { missionGrants } from '../support/grants.js';
import { json, PollUpstream } from '../support/poll-upstream.js';
import { makeDue, occurrencesOf, pollBlock, pollEvents, pollLoop } from './poll-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-poll-life';
const DEPLOYMENT_KEY = 'poll-life-test-deployment-key-0123456789';

/**
 * api.md, Triggers: after `DELETE /v1/triggers/{id}` a `PUT` at `expectedRevision: 0` creates the Trigger again, in
 * a new dedupe epoch. For a poll Trigger that is a new life (PO-1..PO-4): it starts as a new poll Trigger does —
 * no cursor, no hold, no failures or backoff, no bearer secret, due at once — and the items its deleted life saw
 * are new to it, as every identity of the new epoch is. Against a real upstream, through the HTTP API.
 */
export function pollLifeSuite(kind: StoreKind): void {
  describe(`PO-1..PO-4 TR-5 a poll Trigger deleted and created again (${kind})`, () => {
    let t: TestApp;
    let upstream: PollUpstream;
    let loop: PollLoop;
    let n = 0;

    beforeAll(async () => {
      upstream = await PollUpstream.start();
      t = await startTestApp(kind, { autostart: false, env: { REVEILLE_SECRET_KEY: DEPLOYMENT_KEY } });
      const put = await t.request({
        method: 'PUT',
        url: `/v1/missions/${MISSION}`,
        key: newKey(),
        body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 10 }) },
      });
      expect(put.status).toBe(200);
      loop = pollLoop(t.infra.store, t.sql, { secrets: t.app.get(PollSecretStore) });
    });
    afterAll(async () => {
      await t?.close();
      await upstream?.close();
    });

    /** PUT at revision 0: creates the Trigger, or creates it again after its deletion. */
    async function create(triggerId: string, poll: Record<string, unknown>) {
      const put = await t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { expectedRevision: 0, missionId: MISSION, type: 'poll', poll },
      });
      expect(put.status).toBe(200);
      await t.catchUp();
      return put.body as { revision: number };
    }
    async function remove(triggerId: string) {
      const deleted = await t.request({
        method: 'DELETE',
        url: `/v1/triggers/${triggerId}`,
        key: newKey(),
        body: { reason: 'retired' },
      });
      expect(deleted.status).toBe(200);
      await t.catchUp();
    }
    const operator = async (url: string, scope = 'operator:read') =>
      t.request({ method: 'GET', url, token: await t.token({ scope }) });
    /** OP-1 row and PO-1 poll view, after the read models folded. */
    const views = async (triggerId: string) => {
      await t.catchUp();
      const [row, poll] = await Promise.all([
        operator(`/v1/operator/triggers/${triggerId}`),
        operator(`/v1/operator/triggers/${triggerId}/poll`),
      ]);
      expect([row.status, poll.status]).toEqual([200, 200]);
      return { row: row.body, poll: poll.body };
    };
    async function pollNow(triggerId: string) {
      await makeDue(t.sql, TENANT, triggerId);
      return loop.pollTrigger({ tenant: TENANT, triggerId });
    }
    const setSecret = async (triggerId: string, secret: string) =>
      t.request({
        method: 'PUT',
        url: `/v1/triggers/${triggerId}/poll-secret`,
        token: await t.token({ scope: 'triggers:write' }),
        key: newKey(),
        body: { secret },
      });
    const sealedRows = async (triggerId: string) =>
      (
        await t.sql.query('SELECT secret_id FROM poll_secrets WHERE tenant = $1 AND trigger_id = $2', [
          TENANT,
          triggerId,
        ])
      ).rows.length;
    const readModelState = async (triggerId: string) =>
      (
        await t.sql.query<{ state: PollState | null }>(
          'SELECT state FROM rm_polls WHERE tenant = $1 AND trigger_id = $2',
          [TENANT, triggerId],
        )
      ).rows[0]?.state ?? null;
    /** What a poll Trigger never polled shows (polling.shared.ts, the poll view). */
    const fresh = (triggerId: string) => ({
      triggerId,
      cursor: null,
      lastPollAt: null,
      lastResult: null,
      consecutiveFailures: 0,
      quarantined: [],
      secretSetAt: null,
    });
    /** AU-2: the read models rebuilt from the log into a scratch schema equal the live ones. */
    async function expectRebuildsEqual() {
      await t.catchUp();
      const report = await until(async () => {
        const verified = await auditVerify(t.infra, {});
        return verified.readModels.some((table) => table.status === 'not_compared') ? undefined : verified;
      }, 'the live read models caught up with the log');
      expect(report.readModels.filter((table) => table.status !== 'equal')).toEqual([]);
      expect(report.readModels.map((table) => table.table)).toContain('rm_polls');
      expect(report).toMatchObject({ ok: true, violations: 0 });
    }

    it('PO-1 PO-4 PO-2 DD-1 a held Trigger with a cursor, created again: no hold, no cursor, due at once, its old items accepted again', async () => {
      const triggerId = `t-life-${++n}`;
      const path = `/${triggerId}`;
      upstream.pages(path, {
        '': { items: [{ id: 'a' }, { id: 'b' }], next: 'c1' },
        c1: { items: [{ id: { not: 'an id' } }, { id: 'c' }], next: 'c2' },
      });
      const block = pollBlock(upstream.url(path), { onInvalidItem: 'hold', everySeconds: 3600 });
      await create(triggerId, block);
      await pollNow(triggerId);
      await pollNow(triggerId);
      const quarantining = { ...block, onInvalidItem: 'quarantine' };
      const old = await views(triggerId);
      expect(old.row.health).toBe('held');
      expect(old.poll).toMatchObject({ cursor: 'c1', lastResult: 'held', held: { index: 0 } });
      await remove(triggerId);
      // history stays: the operator view of the deleted Trigger still shows its last life
      expect((await operator(`/v1/operator/triggers/${triggerId}/poll`)).body).toMatchObject({ cursor: 'c1' });

      // created again, polling the same upstream (quarantining this time, so the page after c1 is read through)
      const again = await create(triggerId, quarantining);
      expect(again.revision).toBe(3);
      const before = await views(triggerId);
      expect(before.poll).toEqual(fresh(triggerId));
      expect(before.row.health).toBe('ok');
      expect(before.row.recovery).not.toContainEqual(expect.objectContaining({ action: 'set_poll_cursor' }));
      expect(await readModelState(triggerId)).toBeNull();

      // due at once, as a new poll Trigger is: not an hour after the old life's last poll, and not held
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      expect(upstream.requestsTo(path).map((r) => r.query.get('cursor'))).toEqual([null, 'c1', null]);
      const events = await pollEvents(t.infra.store, TENANT, triggerId);
      const first = events.at(-1)!.data as PollCompleted['data'];
      expect(first.cursor).toEqual({ from: null, to: 'c1' });
      // TR-5: a new dedupe epoch, so a and b are new Occurrences of the new life, never duplicates of the old one's
      expect(first.items.map((i) => [i.itemId, i.disposition])).toEqual([
        ['a', 'accepted'],
        ['b', 'accepted'],
      ]);
      await pollNow(triggerId);
      expect((await pollEvents(t.infra.store, TENANT, triggerId)).at(-1)!.data).toMatchObject({
        cursor: { from: 'c1', to: 'c2' },
        items: [
          { index: 0, disposition: 'quarantined' },
          { itemId: 'c', disposition: 'accepted' },
        ],
      });
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual([
        'a',
        'b',
        'a',
        'b',
        'c',
      ]);
      const after = await views(triggerId);
      expect(after.row.health).toBe('ok');
      expect(after.poll).toMatchObject({ cursor: 'c2', lastResult: 'ok', consecutiveFailures: 0 });
      expect(after.poll).not.toHaveProperty('held');
      expect(after.poll.quarantined).toEqual([{ index: 0, reason: expect.any(String), at: expect.any(String) }]);
      await expectRebuildsEqual();
    });

    it('PO-4 PO-1 failures, backoff and the bearer secret of the deleted life do not carry over: the new life sets its own', async () => {
      const triggerId = `t-life-${++n}`;
      const path = `/${triggerId}`;
      let failing = false;
      upstream.on(path, (request, res) =>
        failing
          ? json(res, { error: 'down' }, 503)
          : json(res, { items: [{ id: `x-${request.query.get('cursor') ?? 0}` }], next: 'c1' }),
      );
      const block = pollBlock(upstream.url(path), { everySeconds: 2, auth: { type: 'bearer' } });
      await create(triggerId, block);
      expect((await setSecret(triggerId, 'old-life-token-1')).status).toBe(200);
      await pollNow(triggerId);
      failing = true;
      for (let i = 0; i < 3; i++) await pollNow(triggerId);
      const old = await views(triggerId);
      expect(old.row.health).toBe('failing');
      expect(old.poll).toMatchObject({ cursor: 'c1', consecutiveFailures: 3, secretSetAt: expect.any(String) });
      failing = false;

      await remove(triggerId);
      // the deleted life's sealed secret goes with it
      expect(await sealedRows(triggerId)).toBe(0);
      await create(triggerId, block);
      const before = await views(triggerId);
      expect(before.poll).toEqual(fresh(triggerId));
      expect(before.row.health).toBe('ok');

      // due at once (the old life's backoff was 16 s), and with no secret of its own: secret_missing, nothing fetched
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      const missing = (await pollEvents(t.infra.store, TENANT, triggerId)).at(-1)!;
      expect(missing.type).toBe('PollFailed');
      expect((missing.data as PollFailed['data']).failure.kind).toBe('secret_missing');
      expect((missing.data as PollFailed['data']).cursor).toBeNull();
      expect(missing.data.state).toMatchObject({ consecutiveFailures: 1, secret: null });
      expect(upstream.requestsTo(path).map((r) => r.authorization)).toEqual(Array(4).fill('Bearer old-life-token-1'));

      // its own secret, set now, replaces nothing and is the one sent, from no cursor (polled at once: it is failing)
      await t.catchUp();
      const set = await setSecret(triggerId, 'new-life-token-2');
      expect([set.status, set.body.replaced]).toEqual([200, false]);
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      expect(
        upstream
          .requestsTo(path)
          .slice(4)
          .map((r) => [r.authorization, r.query.get('cursor')]),
      ).toEqual([['Bearer new-life-token-2', null]]);
      // x-0 again: a new Occurrence of the new dedupe epoch
      expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['x-0', 'x-0']);
      const after = await views(triggerId);
      expect(after.poll).toMatchObject({ cursor: 'c1', lastResult: 'ok', consecutiveFailures: 0 });
      expect(after.row.health).toBe('ok');
      expect(await sealedRows(triggerId)).toBe(1);
      await expectRebuildsEqual();
    });

    const dueRows = async (triggerId: string) =>
      (
        await t.sql.query<{ next_poll_at: string; due_revision: number | null }>(
          'SELECT next_poll_at::text, due_revision FROM poll_due WHERE tenant = $1 AND trigger_id = $2',
          [TENANT, triggerId],
        )
      ).rows;

    it("PO-3 OP-1 a deleted poll Trigger's poll_due row goes with the deletion; created again, its nextFireAt is never the old life's plan", async () => {
      const triggerId = `t-life-${++n}`;
      const path = `/${triggerId}`;
      upstream.on(path, (_request, res) => json(res, { items: [], next: null }));
      const block = pollBlock(upstream.url(path), { everySeconds: 3600 });
      await create(triggerId, block);
      await pollNow(triggerId);
      const old = await views(triggerId);
      // planned an hour after the poll
      expect(Date.parse(old.row.nextFireAt) - Date.parse(old.poll.lastPollAt)).toBeGreaterThan(3500_000);
      expect(await dueRows(triggerId)).toHaveLength(1);

      await remove(triggerId);
      // nothing polls a deleted Trigger: the loop's row of it is gone once the deletion is folded
      expect(await dueRows(triggerId)).toEqual([]);

      await create(triggerId, block);
      // not polled yet: no plan shown, as for a new poll Trigger (never the old life's hour)
      expect((await views(triggerId)).row.nextFireAt).toBeNull();
      // due at once
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      const after = await views(triggerId);
      expect(Date.parse(after.row.nextFireAt) - Date.parse(after.poll.lastPollAt)).toBeGreaterThan(3500_000);
      expect(Date.parse(after.poll.lastPollAt)).toBeGreaterThan(Date.parse(old.poll.lastPollAt));
      expect(upstream.requestsTo(path)).toHaveLength(2);
      await expectRebuildsEqual();
      // a rebuild folding the deletion again leaves the new life's row alone
      expect(await dueRows(triggerId)).toEqual([{ next_poll_at: expect.any(String), due_revision: 3 }]);
    });

    it('PO-1 a poll secret that cannot be removed after the deletion committed: DELETE still answers 200, the leftover is never used, the next deletion removes it', async () => {
      const triggerId = `t-life-${++n}`;
      const path = `/${triggerId}`;
      upstream.on(path, (_request, res) => json(res, { items: [], next: null }));
      const block = pollBlock(upstream.url(path), { everySeconds: 3600, auth: { type: 'bearer' } });
      await create(triggerId, block);
      expect((await setSecret(triggerId, 'stuck-life-token-1')).status).toBe(200);
      expect(await sealedRows(triggerId)).toBe(1);
      // the database refuses the removal (a real failure of the statement, after the deletion's commit)
      await t.sql.query(`CREATE FUNCTION reveille_test_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
                           BEGIN RAISE EXCEPTION 'poll_secrets removal refused by the test'; END $$`);
      await t.sql.query(`CREATE TRIGGER reveille_test_refuse_delete BEFORE DELETE ON poll_secrets
                           FOR EACH ROW EXECUTE FUNCTION reveille_test_refuse_delete()`);
      let deleted;
      try {
        deleted = await t.request({
          method: 'DELETE',
          url: `/v1/triggers/${triggerId}`,
          key: newKey(),
          body: { reason: 'retired' },
        });
      } finally {
        await t.sql.query('DROP TRIGGER reveille_test_refuse_delete ON poll_secrets');
        await t.sql.query('DROP FUNCTION reveille_test_refuse_delete()');
      }
      expect([deleted.status, deleted.body]).toEqual([200, { triggerId, revision: 2, position: expect.any(Number) }]);
      expect((await t.request({ method: 'GET', url: `/v1/triggers/${triggerId}` })).status).toBe(404);
      expect(await sealedRows(triggerId)).toBe(1); // the leftover

      // created again: the new life names no secret, so the leftover is never sent
      await t.catchUp();
      await create(triggerId, block);
      expect((await views(triggerId)).poll.secretSetAt).toBeNull();
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      const failed = (await pollEvents(t.infra.store, TENANT, triggerId)).at(-1)!;
      expect([failed.type, (failed.data as PollFailed['data']).failure.kind]).toEqual(['PollFailed', 'secret_missing']);
      expect(upstream.requestsTo(path).map((r) => r.authorization)).toEqual([]);
      // the next deletion removes what was written until then, the leftover included
      await remove(triggerId);
      expect(await sealedRows(triggerId)).toBe(0);
    });

    it("PO-3 AU-2 a poll of the deleted life recorded after the Trigger was created again is not the new life's state", async () => {
      const triggerId = `t-life-${++n}`;
      const path = `/${triggerId}`;
      let release: (() => void) | null = null;
      let arrived: () => void = () => undefined;
      const inFlight = new Promise<void>((resolve) => (arrived = resolve));
      upstream.on(path, (request, res) => {
        const answer = () => json(res, { items: [{ id: `y-${request.query.get('cursor') ?? 0}` }], next: 'n1' });
        if (release !== null) return answer();
        release = answer;
        arrived();
      });
      const block = pollBlock(upstream.url(path), { everySeconds: 3600, timeoutSeconds: 10 });
      await create(triggerId, block);
      // the old life's poll is in flight while the Trigger is deleted and created again
      const slow = pollNow(triggerId);
      await inFlight;
      await remove(triggerId);
      await create(triggerId, block);
      release!();
      expect((await slow)?.outcome).toBe('recorded');
      const late = (await pollEvents(t.infra.store, TENANT, triggerId)).at(-1)!;
      expect([late.type, late.data.state.cursor]).toEqual(['PollCompleted', 'n1']);

      await t.catchUp();
      expect(await readModelState(triggerId)).toBeNull();
      expect((await views(triggerId)).poll).toEqual(fresh(triggerId));
      // the new life's first poll: due at once, from no cursor
      expect(await loop.runOnce()).toBeGreaterThanOrEqual(1);
      expect(upstream.requestsTo(path).map((r) => r.query.get('cursor'))).toEqual([null, null]);
      await t.catchUp();
      expect(await readModelState(triggerId)).toMatchObject({ cursor: 'n1', lastResult: 'ok', life: 3, seq: 2 });
      expect((await views(triggerId)).poll).toMatchObject({ cursor: 'n1', lastResult: 'ok' });
      await expectRebuildsEqual();
    });
  });
}
