import type { CausalLink } from '../occurrence/occurrence-events.js';
import { hopsIn } from './causal-link.js';

export type CausalBlock =
  | { reason: 'causal_depth_exceeded'; evidence: Record<string, unknown> }
  | { reason: 'causal_loop'; evidence: Record<string, unknown> };

/**
 * CA-3, at admission. Depth first: the deeper of the recorded depth and the hops the ancestry shows, so neither a
 * low depth nor a cut chain hides how deep it is. A chain that shows fewer hops than its depth is incomplete (cut
 * at the CA-1 bound, or recorded wrongly): the loop check could miss the Trigger it dropped, so it is blocked as
 * too deep, never admitted on a partial view. Then a loop: the Trigger appears anywhere in its own ancestry, which
 * holds the whole chain, so A → B → A is found as surely as A → A. `unknown` links to nothing (CA-2) and closes no loop.
 */
export function causalBlock(triggerId: string, causal: CausalLink, maxDepth: number): CausalBlock | null {
  const { ancestry } = causal;
  const hops = hopsIn(ancestry);
  const depth = Math.max(causal.depth, hops);
  if (depth > maxDepth) return { reason: 'causal_depth_exceeded', evidence: { depth, maxDepth } };
  if (ancestry === 'unknown') return null;
  if (hops < causal.depth)
    return { reason: 'causal_depth_exceeded', evidence: { depth, maxDepth, truncated: true, hops } };
  const via = ancestry.filter((entry) => entry.triggerId === triggerId);
  return via.length > 0 ? { reason: 'causal_loop', evidence: { triggerId, via } } : null;
}
