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
});
