import { MAX_CAUSAL_DEPTH } from '../mission/mission-grants.js';
import type { CausalAncestry, CausalLink } from '../occurrence/occurrence-events.js';

export type AncestryEntry = Exclude<CausalAncestry, 'unknown'>[number];

/**
 * CA-1: an ancestry holds two references per causal hop (the Occurrence whose execution recorded an Operation,
 * and that Operation), so its hard bound follows the depth ceiling. Only an admitted Occurrence's execution can
 * record an Operation, and admission never lets depth pass MAX_CAUSAL_DEPTH, so a recorded chain is cut only
 * when it is already too deep to be admitted (see `causalBlock`).
 */
export const MAX_ANCESTRY_ENTRIES = 2 * (MAX_CAUSAL_DEPTH + 1);

/** A root: manual fires, schedule instants, polls and webhooks without a correlation value. */
export const rootLink = (): CausalLink => ({ parentId: null, depth: 0, ancestry: [] });

/** CA-2: a correlation value was present but not trusted (unverified source) or named no known Operation. */
export const unknownLink = (): CausalLink => ({ parentId: null, depth: 0, ancestry: 'unknown' });

/** The Occurrence an Operation was recorded under: its execution's Occurrence and Trigger. */
export interface OperationOrigin {
  occurrenceId: string;
  triggerId: string;
  /** That Occurrence's own causal link, as recorded when it was observed. */
  causal: CausalLink;
}

/**
 * CA-1/CA-2: the link an Occurrence gets when a verified delivery correlates with the Operation: its parent is the
 * Operation, its depth one more than the origin's, its ancestry the origin's followed by the origin and the
 * Operation (references only). An origin whose own ancestry is `unknown` contributes nothing it cannot prove:
 * the chain starts at the origin. Past the bound the oldest references go first; the depth stays true.
 */
export function operationChildLink(origin: OperationOrigin, operationId: string): CausalLink {
  const before = origin.causal.ancestry === 'unknown' ? [] : origin.causal.ancestry;
  const chain: AncestryEntry[] = [
    ...before.map((entry) => ({ ...entry })),
    { occurrenceId: origin.occurrenceId, triggerId: origin.triggerId },
    { operationId, triggerId: origin.triggerId },
  ];
  return {
    parentId: operationId,
    depth: origin.causal.depth + 1,
    ancestry: chain.length > MAX_ANCESTRY_ENTRIES ? chain.slice(chain.length - MAX_ANCESTRY_ENTRIES) : chain,
  };
}

/** How many causal hops a recorded ancestry shows: one Occurrence reference per hop. */
export const hopsIn = (ancestry: CausalAncestry): number =>
  ancestry === 'unknown' ? 0 : ancestry.filter((entry) => entry.occurrenceId !== undefined).length;

/**
 * CA-1/CA-3: the most references an execution standing for several Occurrences (a BA-1 batch, a DD-5 group) may
 * carry, so that the child its Operation fixes (two more references) is never cut: a cut union could drop the one
 * Trigger that closes a cycle while still showing as many hops as its depth.
 */
export const MAX_MERGED_ANCESTRY_ENTRIES = MAX_ANCESTRY_ENTRIES - 2;

/**
 * CA-1/CA-3: the causality of one execution standing for several Occurrences (a batch's members, a coalesced
 * group's): its depth is the deepest member's, its ancestry every reference any member's ancestry holds (each once,
 * in member order, so a linear chain stays root first). `unknown` members prove nothing (as for an Operation's
 * origin) and add no reference; only when no member has a reference and one is `unknown` is the whole `unknown`.
 * Never cut: a union longer than MAX_MERGED_ANCESTRY_ENTRIES is left whole, and `causalBlock` refuses it.
 */
export function mergedLink(links: readonly CausalLink[]): CausalLink {
  if (links.length === 1) return links[0]!;
  const seen = new Set<string>();
  const ancestry: AncestryEntry[] = [];
  let deepest: CausalLink | null = null;
  for (const link of links) {
    if (deepest === null || link.depth > deepest.depth) deepest = link;
    if (link.ancestry === 'unknown') continue;
    for (const entry of link.ancestry) {
      const key = entry.occurrenceId !== undefined ? `o:${entry.occurrenceId}` : `p:${entry.operationId ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      ancestry.push({ ...entry });
    }
  }
  const unknown = ancestry.length === 0 && links.some((link) => link.ancestry === 'unknown');
  return {
    parentId: deepest?.parentId ?? null,
    depth: deepest?.depth ?? 0,
    ancestry: unknown ? 'unknown' : ancestry,
  };
}
