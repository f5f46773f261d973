import type { CausalLink } from '../occurrence/occurrence-events.js';
import { hopsIn, MAX_MERGED_ANCESTRY_ENTRIES } from './causal-link.js';

export type CausalBlock =
  | { reason: 'causal_depth_exceeded'; evidence: Record<string, unknown> }
  | { reason: 'causal_loop'; evidence: Record<string, unknown> };

/**
 * CA-3, at admission. Depth first: the recorded depth (the longest chain; an execution standing for several
 * Occurrences, a batch or a coalesced group, carries the deepest member's, and its ancestry, the union of theirs,
 * may show more hops than that). A chain that shows fewer hops than its depth is incomplete (cut at the CA-1 bound,
 * or recorded wrongly): the loop check could miss the Trigger it dropped, so it is blocked as too deep, never
 * admitted on a partial view. So is an ancestry holding more references than the count bound allows an execution
 * to pass on (a union of many chains, never cut: see `mergedLink`). Then a loop: the Trigger appears anywhere in its
 * own ancestry, which holds the whole chain, so A → B → A is found as surely as A → A. `unknown` links to nothing
 * (CA-2) and closes no loop.
 */
export function causalBlock(triggerId: string, causal: CausalLink, maxDepth: number): CausalBlock | null {
  const { ancestry, depth } = causal;
  const hops = hopsIn(ancestry);
  if (depth > maxDepth) return { reason: 'causal_depth_exceeded', evidence: { depth, maxDepth } };
  if (ancestry === 'unknown') return null;
  if (hops < depth) return { reason: 'causal_depth_exceeded', evidence: { depth, maxDepth, truncated: true, hops } };
  if (ancestry.length > MAX_MERGED_ANCESTRY_ENTRIES)
    return {
      reason: 'causal_depth_exceeded',
      evidence: { depth, maxDepth, entries: ancestry.length, maxEntries: MAX_MERGED_ANCESTRY_ENTRIES },
    };
  const via = ancestry.filter((entry) => entry.triggerId === triggerId);
  return via.length > 0 ? { reason: 'causal_loop', evidence: { triggerId, via } } : null;
}
