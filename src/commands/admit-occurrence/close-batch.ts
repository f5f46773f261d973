import type { EventStore } from '../../domain/ports/event-store.js';
import { WrongExpectedRevision } from '../../domain/shared/errors.js';
import { closeInOrder } from '../../domain/admission/index.js';
import { closeCauseAt } from '../../domain/batch/batch.js';
import { write } from '../shared/write-kernel.js';
import { admissionAppends, countersOf, decidedWrite, readAdmissions } from './admission-write.js';
import { loadBatchPartition, readMembers } from './batch-reads.js';
import { loadHeldSources } from './coalescing-reads.js';
import type { DecisionMade } from './decision-notifier.js';

export interface BatchCloseResult {
  /** false: nothing was due (no open batch, or its deadline not reached by the database clock). */
  closed: boolean;
  executionId: string | null;
  decisions: DecisionMade[];
}

const NOTHING: BatchCloseResult = { closed: false, executionId: null, decisions: [] };

/**
 * BA-1: closes a partition's open batch once its deadline has passed by the database clock (never before), deciding
 * it like an admission (AD-2 against current state, then one execution's overlap, budget and concurrency) in one
 * append with every member's decision. The `BatchClosed` goes to the partition stream at the revision read, so of
 * any number of closers (processes, a joining admission) exactly one closes it; the others find it closed.
 */
export function closeDueBatch(store: EventStore, streamId: string): Promise<BatchCloseResult> {
  return write(store, async () => {
    const partition = await loadBatchPartition(store, streamId);
    const open = partition.state.open;
    if (!open) return { appends: [], answer: () => NOTHING };
    // The database's own now, not an estimate of it: a deadline is never taken as reached early.
    const now = await store.now();
    const cause = closeCauseAt(partition.state, now.toISOString());
    if (!cause) return { appends: [], answer: () => NOTHING };
    const members = await readMembers(store, open.members);
    // A racing closer decided the members after this one read the partition: it moved (at least one revision), so
    // read again, and find the batch closed.
    if (members.length < open.members.length)
      throw new WrongExpectedRevision(streamId, partition.revision, partition.revision + 1);
    const opener = members[0]!.occurrence;
    // In its batch (DD-5: perhaps a group's representative): the reads skip coalescing, the close is the batch's.
    const opening = {
      status: 'observed' as const,
      occurrence: opener,
      conflictingDigests: [],
      batch: { batchId: open.batchId, streamId },
    };
    const [read] = await readAdmissions(store, { now: () => Promise.resolve(now) }, [[opening]]);
    // WH-3/AD-2: the close re-checks every member's key, so each member's source is read (now, not when it joined).
    const sources = await loadHeldSources(
      store,
      opener.tenant,
      members.map((m) => m.occurrence),
      new Set(read!.view.sources.keys()),
    );
    // The partition as this closer read it, whatever the Trigger's current definition says about batching.
    const batched = {
      ...read!,
      view: { ...read!.view, sources: new Map([...read!.view.sources, ...sources]) },
      batches: {
        partitions: new Map([[streamId, partition]]),
        members: new Map(members.map((m) => [m.occurrence.occurrenceId, m])),
      },
    };
    const admitted = closeInOrder(streamId, cause, batched.view, countersOf(batched));
    const appends = admissionAppends(batched, [], admitted, opener.tenant);
    const decided = decidedWrite(store, [{ read: batched, admitted, appends }]);
    return {
      appends: decided.appends,
      answer: (positions) => ({
        closed: true,
        executionId: admitted.steps[0]!.executionId,
        decisions: decided.answer(positions).decisions,
      }),
    };
  });
}
