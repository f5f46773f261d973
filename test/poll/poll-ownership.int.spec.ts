import { randomBytes } from 'node:crypto';
import { HttpJsonConnector } from '../../src/adapters/poll/http-json-connector.js';
import type { PollLoop } from '../../src/adapters/poll/poll-loop.js';
import { PgSqlClient } from '../../src/adapters/eventstore/sql/pg-sql-client.js';
import { SqlEventStore } from '../../src/adapters/eventstore/sql/sql-event-store.js';
import type { PollConnector } from '../../src/domain/ports/poll-connector.js';
import { newKey, startTestApp, type TestApp } from '../support/app.js';
import { dropSchema, TEST_DATABASE_URL } from '../support/databases.js';
import { missionGrants } from '../support/grants.js';
import { json, PollUpstream } from '../support/poll-upstream.js';
import { claimPoll, msUntilNextPoll } from '../../src/projections/poll/poll-due.js';
import { makeDue, occurrencesOf, pollBlock, pollEvents, pollLoop, revisePoll } from './poll-fixtures.js';

const TENANT = 'tenant-a';
const MISSION = 'm-poll-owners';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PO-3 with several pollers on one PostgreSQL: each on its own connection pool and event store, as separate
 * processes would be. Ownership is the `poll_due` row, compared and set on the database clock.
 */
describe('PO-3 SC-6 poll ownership through the store (postgres, separate connections)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let t: TestApp;
  let other: { sql: PgSqlClient; store: SqlEventStore };
  let upstream: PollUpstream;
  const loops: PollLoop[] = [];
  let n = 0;

  beforeAll(async () => {
    upstream = await PollUpstream.start();
    t = await startTestApp('postgres', { autostart: false, database: schema });
    const sql = await PgSqlClient.connect({ connectionString: TEST_DATABASE_URL, schema, max: 4 });
    other = { sql, store: new SqlEventStore(sql) };
    const put = await t.request({
      method: 'PUT',
      url: `/v1/missions/${MISSION}`,
      key: newKey(),
      body: { state: 'active', grants: missionGrants({ maxExecutionsPerHour: 1000, maxConcurrent: 10 }) },
    });
    expect(put.status).toBe(200);
  });
  afterEach(async () => {
    await Promise.all(loops.splice(0).map((loop) => loop.stop()));
  });
  afterAll(async () => {
    await other?.sql.close();
    await t?.close();
    await dropSchema(schema);
    await upstream?.close();
  });

  async function pollTrigger(extra: Record<string, unknown> = {}) {
    const triggerId = `t-own-${++n}`;
    const path = `/${triggerId}`;
    await revisePoll(t.infra.store, {
      tenant: TENANT,
      triggerId,
      missionId: MISSION,
      poll: pollBlock(upstream.url(path), extra),
    });
    await t.catchUp();
    return { triggerId, path };
  }

  /** One loop per "process": this app's connections, and the other pool's. */
  const twoLoops = (connector?: PollConnector): [PollLoop, PollLoop] => {
    const pair: [PollLoop, PollLoop] = [
      pollLoop(t.infra.store, t.sql, { ...(connector ? { connector } : {}) }),
      pollLoop(other.store, other.sql, connector ? { connector } : {}),
    ];
    loops.push(...pair);
    return pair;
  };

  /** An upstream answering each poll after `delayMs` with one new item per request. */
  function slowCounter(path: string, delayMs: number): void {
    let count = 0;
    upstream.on(path, (_, res) => {
      const id = `item-${++count}`;
      setTimeout(() => json(res, { items: [{ id }], next: null }), delayMs);
    });
  }

  it('PO-3 of eight pollers claiming one due Trigger at the same instant, exactly one polls', async () => {
    const { triggerId, path } = await pollTrigger();
    slowCounter(path, 100);
    const pollers = [...twoLoops(), ...twoLoops(), ...twoLoops(), ...twoLoops()];
    await pollers[0]!.pollTrigger({ tenant: TENANT, triggerId });
    await makeDue(t.sql, TENANT, triggerId);
    const results = await Promise.all(pollers.map((p) => p.pollTrigger({ tenant: TENANT, triggerId })));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(upstream.requestsTo(path)).toHaveLength(2);
    expect(await pollEvents(t.infra.store, TENANT, triggerId)).toHaveLength(2);
  });

  it('PO-3 two running pollers on separate connections poll an everySeconds 1 Trigger once per interval, never side by side', async () => {
    const { triggerId, path } = await pollTrigger();
    slowCounter(path, 200);
    const [a, b] = twoLoops();
    a.start();
    b.start();
    await sleep(4_500);
    await Promise.all([a.stop(), b.stop()]);
    const requests = upstream.requestsTo(path);
    // 4.5 s at one poll a second: 4 or 5 (two unowned pollers would make about twice as many)
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(requests.length).toBeLessThanOrEqual(6);
    expect(upstream.maxInFlightTo(path)).toBe(1);
    for (let i = 1; i < requests.length; i++) expect(requests[i]!.at - requests[i - 1]!.at).toBeGreaterThanOrEqual(900);
    const events = await pollEvents(t.infra.store, TENANT, triggerId);
    expect(events.length).toBe(requests.length);
    expect((await occurrencesOf(t.sql, TENANT, triggerId)).length).toBe(requests.length);
  });

  it('SC-6 PO-3 after downtime the poller polls once, not once per missed interval', async () => {
    const { triggerId, path } = await pollTrigger();
    slowCounter(path, 0);
    const [a] = twoLoops();
    // this Trigger alone: on a loaded machine the previous test's Trigger may be due again by now
    expect(await a.pollTrigger({ tenant: TENANT, triggerId })).not.toBeNull();
    // 3.5 missed intervals with no poller running
    await sleep(3_500);
    const restarted = Date.now();
    a.start();
    await sleep(700);
    const afterRestart = upstream.requestsTo(path).filter((r) => r.at >= restarted);
    expect(afterRestart).toHaveLength(1);
    await a.stop();
    expect(await pollEvents(t.infra.store, TENANT, triggerId)).toHaveLength(2);
  });

  it('PO-3 SC-6 one lane finishes each poll with its next claim: after a round every lease is released and each Trigger is due an interval after its own claim', async () => {
    const mine = [
      await pollTrigger({ everySeconds: 30 }),
      await pollTrigger({ everySeconds: 40 }),
      await pollTrigger({ everySeconds: 50 }),
    ];
    mine.forEach(({ path }) => slowCounter(path, 0));
    const loop = pollLoop(t.infra.store, t.sql, { concurrency: 1 });
    loops.push(loop);
    await loop.runOnce();
    const { rows } = await t.sql.query<{ trigger_id: string; lease_token: string | null; seconds: number }>(
      `SELECT trigger_id, lease_token, EXTRACT(EPOCH FROM next_poll_at - claimed_at)::float8 AS seconds
         FROM poll_due WHERE tenant = $1 AND trigger_id = ANY($2) ORDER BY trigger_id`,
      [TENANT, mine.map((m) => m.triggerId)],
    );
    expect(rows.map((r) => [r.lease_token, r.seconds])).toEqual([
      [null, 30],
      [null, 40],
      [null, 50],
    ]);
    for (const { path } of mine) expect(upstream.requestsTo(path)).toHaveLength(1);
  });

  it("PO-3 a claim carrying another poll's finish finishes it even when the claim is lost (not due)", async () => {
    const [a, b] = [await pollTrigger(), await pollTrigger()];
    await makeDue(t.sql, TENANT, a.triggerId);
    const held = await claimPoll(t.sql, { tenant: TENANT, triggerId: a.triggerId }, 60_000, 'token-a');
    expect(held).not.toBeNull();
    // b was never polled: its row does not exist yet, so claim it once and finish it far ahead
    const first = await claimPoll(t.sql, { tenant: TENANT, triggerId: b.triggerId }, 60_000, 'token-b');
    expect(first).not.toBeNull();
    const finishA = { key: { tenant: TENANT, triggerId: a.triggerId }, token: 'token-a', delayMs: 7_000 };
    // b is leased by 'token-b': this claim loses, and still finishes a
    expect(await claimPoll(t.sql, { tenant: TENANT, triggerId: b.triggerId }, 60_000, 'token-c', finishA)).toBeNull();
    const { rows } = await t.sql.query<{ lease_token: string | null; seconds: number }>(
      `SELECT lease_token, EXTRACT(EPOCH FROM next_poll_at - claimed_at)::float8 AS seconds FROM poll_due
        WHERE tenant = $1 AND trigger_id = $2`,
      [TENANT, a.triggerId],
    );
    expect(rows).toEqual([{ lease_token: null, seconds: 7 }]);
  });

  it('PO-3 a poller that dies between fetch and commit: after its lease the next poller fetches the same page, no duplicate, nothing skipped', async () => {
    const { triggerId, path } = await pollTrigger({ timeoutSeconds: 1 });
    upstream.pages(path, {
      '': { items: [{ id: 'p1' }, { id: 'p2' }], next: 'k1' },
      k1: { items: [{ id: 'p2' }, { id: 'p3' }], next: 'k2' },
    });
    const real = new HttpJsonConnector();
    let fetched = 0;
    // fetches, then never returns: the process died with the page in memory
    const dying: PollConnector = {
      id: 'http-json@1',
      fetch: async (binding, cursor) => {
        await real.fetch(binding, cursor);
        fetched++;
        return new Promise(() => undefined);
      },
    };
    const victim = pollLoop(t.infra.store, t.sql, { connector: dying, leaseMarginMs: 300 });
    const survivor = pollLoop(other.store, other.sql, { leaseMarginMs: 300 });
    void victim.pollTrigger({ tenant: TENANT, triggerId });
    while (fetched === 0) await sleep(10);
    // the lease holds: nobody else polls meanwhile
    expect(await survivor.pollTrigger({ tenant: TENANT, triggerId })).toBeNull();
    await sleep(1_400);
    const recorded = await survivor.pollTrigger({ tenant: TENANT, triggerId });
    expect(recorded?.state.cursor).toBe('k1');
    await makeDue(t.sql, TENANT, triggerId);
    await survivor.pollTrigger({ tenant: TENANT, triggerId });
    expect(upstream.requestsTo(path).map((r) => r.query.get('cursor'))).toEqual([null, null, 'k1']);
    expect((await occurrencesOf(t.sql, TENANT, triggerId)).map((o) => o.externalId)).toEqual(['p1', 'p2', 'p3']);
  });
  // Last in the file: it turns the other Triggers of this schema off to read the loop's idle time alone.
  it('PO-1 PO-3 a revised Trigger whose poll another poller holds is looked at when the lease ends, not in a busy loop', async () => {
    const { triggerId, path } = await pollTrigger({ everySeconds: 60 });
    await t.sql.query(`UPDATE rm_polls SET active = false WHERE tenant = $1 AND trigger_id <> $2`, [TENANT, triggerId]);
    await makeDue(t.sql, TENANT, triggerId);
    const loop = pollLoop(t.infra.store, t.sql);
    loops.push(loop);
    await loop.pollTrigger({ tenant: TENANT, triggerId });
    expect(upstream.requestsTo(path)).toHaveLength(1);
    await revisePoll(t.infra.store, {
      tenant: TENANT,
      triggerId,
      missionId: MISSION,
      poll: pollBlock(upstream.url(path), { everySeconds: 60, timeoutSeconds: 2 }),
    });
    await t.catchUp();
    // revised: to be planned again at once
    expect(await msUntilNextPoll(t.sql)).toBe(0);
    // ...unless another poller holds it: then not before its lease runs out
    await t.sql.query(
      `UPDATE poll_due SET lease_until = statement_timestamp() + interval '30 seconds', lease_token = 'elsewhere'
        WHERE tenant = $1 AND trigger_id = $2`,
      [TENANT, triggerId],
    );
    expect(await msUntilNextPoll(t.sql)).toBeGreaterThan(25_000);
  });
});
