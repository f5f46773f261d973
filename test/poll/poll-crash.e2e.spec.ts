import { type ServeProcess, startServe } from '../support/serve-process.js';
import { json, PollUpstream } from '../support/poll-upstream.js';
import { occurrencesOf } from './poll-fixtures.js';

const GRANTS = {
  maxExecutionsPerHour: 1000,
  maxConcurrent: 10,
  resourceScopes: [],
  classification: 'internal',
  acceptLowerTrust: false,
  maxCausalDepth: 4,
};

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * PO-3 with a real `reveille serve`: SIGKILL while a poll's page is in flight, then a restart on the same schema;
 * with `thread` the poller runs in the background worker thread.
 */
describe.each(['on', 'thread'] as const)('PO-3 a poller killed mid-poll (REVEILLE_BACKGROUND=%s)', (background) => {
  let serve: ServeProcess;
  let upstream: PollUpstream;

  beforeAll(async () => {
    upstream = await PollUpstream.start();
    serve = await startServe({ background, scope: 'missions:write triggers:write operator:read' });
  }, 180_000);
  afterAll(async () => {
    await serve?.close();
    await upstream?.close();
  });

  it('OP-4 the poll loop is one of the running background tasks', async () => {
    const readiness = (await (await fetch(`${serve.baseUrl}/health/ready`)).json()) as {
      details: { subscriptions: { running: string[] } };
    };
    expect(readiness.details.subscriptions.running).toContain(
      background === 'thread' ? 'poller-thread/poller:poll' : 'poller:poll',
    );
  });

  it('the restarted service fetches the same page again: every item one Occurrence, none skipped', async () => {
    let firstSeen = false;
    upstream.on('/feed', (request, res) => {
      const cursor = request.query.get('cursor');
      if (!firstSeen) {
        // the first fetch never completes: the process dies with the page half read, before any commit
        firstSeen = true;
        res.setHeader('content-type', 'application/json');
        res.write('{"items":[{"id":"e1"},{"id":"e2"}');
        return;
      }
      if (cursor === null) return json(res, { items: [{ id: 'e1' }, { id: 'e2' }], next: 'k1' });
      if (cursor === 'k1') return json(res, { items: [{ id: 'e2' }, { id: 'e3' }], next: 'k2' });
      return json(res, { items: [], next: null });
    });
    expect((await serve.call('PUT', '/v1/missions/m-1', { state: 'active', grants: GRANTS })).status).toBe(200);
    const put = await serve.call('PUT', '/v1/triggers/t-feed', {
      missionId: 'm-1',
      type: 'poll',
      poll: {
        connector: 'http-json@1',
        url: upstream.url('/feed'),
        everySeconds: 1,
        itemsPointer: '/items',
        idPointer: '/id',
        cursorParam: 'cursor',
        nextCursorPointer: '/next',
        timeoutSeconds: 1,
      },
    });
    expect(put.status).toBe(200);
    await until(async () => firstSeen, 30_000);
    await serve.kill();
    expect(await occurrencesOf(serve.sql, 'acme', 't-feed')).toEqual([]);

    await serve.restart();
    await until(async () => (await occurrencesOf(serve.sql, 'acme', 't-feed')).length >= 3, 30_000);
    await until(async () => upstream.requestsTo('/feed').some((r) => r.query.get('cursor') === 'k2'), 10_000);
    expect((await occurrencesOf(serve.sql, 'acme', 't-feed')).map((o) => o.externalId)).toEqual(['e1', 'e2', 'e3']);
    const cursors = upstream.requestsTo('/feed').map((r) => r.query.get('cursor'));
    expect(cursors.slice(0, 3)).toEqual([null, null, 'k1']);
    const { rows } = await serve.sql.query<{ from: string | null; to: string | null; dispositions: string[] }>(
      `SELECT data->'cursor'->>'from' AS "from", data->'cursor'->>'to' AS "to",
              ARRAY(SELECT jsonb_array_elements(data->'items')->>'disposition') AS dispositions
         FROM events WHERE type = 'PollCompleted' AND data->>'triggerId' = 't-feed' ORDER BY position LIMIT 2`,
    );
    expect(rows).toEqual([
      { from: null, to: 'k1', dispositions: ['accepted', 'accepted'] },
      { from: 'k1', to: 'k2', dispositions: ['duplicate', 'accepted'] },
    ]);
    // AD-1: the poll loop's Occurrences reach admission (with REVEILLE_BACKGROUND=thread, in another thread)
    const statuses = async () =>
      (
        await serve.sql.query<{ status: string }>(
          `SELECT status FROM rm_occurrences WHERE tenant = 'acme' AND trigger_id = 't-feed'`,
        )
      ).rows.map((r) => r.status);
    await until(async () => (await statuses()).filter((s) => s === 'admitted').length === 3, 10_000);
  }, 90_000);
});
