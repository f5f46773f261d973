import { Backpressure } from '../../src/adapters/ingress/backpressure.js';
import { AdmissionProcessor } from '../../src/adapters/admission/admission.processor.js';
import { type StoreKind, startTestApp, type TestApp } from '../support/app.js';
import { post, standardHeaders, webhookSetup } from './ingress-client.js';

const PER_SOURCE = 3;
const GLOBAL = 5;

for (const kind of ['postgres', 'pglite'] as StoreKind[]) {
  describe(`WH-8 backpressure on undecided Occurrences (${kind})`, () => {
    let t: TestApp;
    const deliver = (source: { sourceId: string; secret: string }, id: string) => {
      const body = JSON.stringify({ type: 'push', id });
      return post(t, source.sourceId, body, standardHeaders(source.secret, body, { id }));
    };
    const observed = async () =>
      Number(
        (await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE type = 'OccurrenceObserved'`))
          .rows[0]!.n,
      );
    /** Admission decides every waiting Occurrence and the read model sees it; then the process counts again. */
    const decideAll = async () => {
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
      await t.app.get(Backpressure).refresh();
    };
    /**
     * The statements sent during `during` that append to the event log or touch the auth replay store. Not reads of
     * the log: under load another task's (a definition lookup the earlier deliveries started) may fall in the window.
     */
    const writesDuring = async <T>(during: () => Promise<T>): Promise<{ result: T; touched: string[] }> => {
      const touched: string[] = [];
      const original = t.sql.query.bind(t.sql);
      t.sql.query = ((query: Parameters<typeof original>[0], ...rest: unknown[]) => {
        const text = typeof query === 'string' ? query : query.text;
        if (/\bauth_replay\b|\bINSERT INTO events\b/.test(text)) touched.push(text);
        return (original as (...args: unknown[]) => unknown)(query, ...rest);
      }) as typeof t.sql.query;
      try {
        return { result: await during(), touched };
      } finally {
        t.sql.query = original;
      }
    };

    beforeAll(async () => {
      t = await startTestApp(kind, {
        autostart: false,
        env: { REVEILLE_MAX_OUTSTANDING_PER_SOURCE: String(PER_SOURCE), REVEILLE_MAX_OUTSTANDING: String(GLOBAL) },
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('WH-8 a source with its limit of undecided Occurrences gets 429 outstanding_source before anything is stored; once they are decided, the same delivery is accepted', async () => {
      const a = await webhookSetup(t, 'bp-a');
      for (let i = 0; i < PER_SOURCE; i++) expect((await deliver(a, `a-${i}`)).status).toBe(202);
      const before = await observed();
      const { result: refused, touched } = await writesDuring(() => deliver(a, `a-${PER_SOURCE}`));
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'rate_limited', reason: 'outstanding_source', status: 429 });
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(touched).toEqual([]); // no replay record, no append: the limit is checked before the database
      expect(await observed()).toBe(before);

      await decideAll();
      // Refused before the replay store, the delivery is not spent: the sender's retry is a first sighting.
      const retried = await deliver(a, `a-${PER_SOURCE}`);
      expect(retried.status).toBe(202);
      expect(retried.body.occurrences).toHaveLength(1);
      expect(await observed()).toBe(before + 1);
    });

    it('WH-8 all sources together are held to the global limit: a quiet source is refused outstanding_global while others fill it', async () => {
      const [b, c, quiet] = [
        await webhookSetup(t, 'bp-b'),
        await webhookSetup(t, 'bp-c'),
        await webhookSetup(t, 'bp-quiet'),
      ];
      await decideAll();
      for (let i = 0; i < PER_SOURCE; i++) expect((await deliver(b, `b-${i}`)).status).toBe(202);
      for (let i = 0; i < GLOBAL - PER_SOURCE; i++) expect((await deliver(c, `c-${i}`)).status).toBe(202);
      const refused = await deliver(quiet, 'q-0');
      expect([refused.status, refused.body.reason]).toEqual([429, 'outstanding_global']);
      expect(refused.headers['retry-after']).toBe('5');
      await decideAll();
      expect((await deliver(quiet, 'q-0')).status).toBe(202);
    });

    it('WH-8 the serving process counts again by itself: decided Occurrences free the source without any call', async () => {
      const d = await webhookSetup(t, 'bp-d');
      await decideAll();
      for (let i = 0; i < PER_SOURCE; i++) expect((await deliver(d, `d-${i}`)).status).toBe(202);
      expect((await deliver(d, 'd-next')).body.reason).toBe('outstanding_source');
      await t.app.get(AdmissionProcessor).subscription.catchUp();
      await t.catchUp();
      let answer = await deliver(d, 'd-next');
      for (let waited = 0; answer.status === 429 && waited < 5_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await deliver(d, 'd-next');
      }
      expect(answer.status).toBe(202);
    });
  });
}
