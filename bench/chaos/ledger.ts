import pg from 'pg';

/** What the log holds for the deliveries a producer was told were accepted (a 200 or 202). */
export interface Ledger {
  acked: number;
  /** Acknowledged, but no Occurrence carries the delivery id. */
  lost: number;
  /** More than one Occurrence for one delivery id. */
  duplicated: number;
  /** An Occurrence with no decision after it. */
  undecided: number;
}

/** Reads the schema's events directly: the harness trusts the log, not the service's own read models. */
export async function readLedger(databaseUrl: string, schema: string, acked: ReadonlySet<string>): Promise<Ledger> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET search_path TO ${schema}`);
    const observed = await client.query<{ id: string; n: number }>(
      `SELECT data->>'externalId' AS id, count(*)::int AS n FROM events
        WHERE type = 'OccurrenceObserved' GROUP BY 1`,
    );
    const undecided = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events o
        WHERE o.type = 'OccurrenceObserved'
          AND NOT EXISTS (SELECT 1 FROM events d WHERE d.stream_id = o.stream_id AND d.revision > o.revision)`,
    );
    const seen = new Map(observed.rows.map((r) => [r.id, r.n]));
    return {
      acked: acked.size,
      lost: [...acked].filter((id) => !seen.has(id)).length,
      duplicated: observed.rows.filter((r) => r.n > 1).length,
      undecided: undecided.rows[0]!.n,
    };
  } finally {
    await client.end();
  }
}

/** Polls until every Occurrence is decided or the deadline passes (admission runs after the 202). */
export async function settledLedger(
  databaseUrl: string,
  schema: string,
  acked: ReadonlySet<string>,
  timeoutMs = 60_000,
): Promise<Ledger> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ledger = await readLedger(databaseUrl, schema, acked);
    if (ledger.undecided === 0 || Date.now() > deadline) return ledger;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
