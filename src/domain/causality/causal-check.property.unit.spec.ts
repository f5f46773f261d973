import fc from 'fast-check';
import { MAX_CAUSAL_DEPTH } from '../mission/mission-grants.js';
import type { CausalLink } from '../occurrence/occurrence-events.js';
import { causalBlock } from './causal-check.js';
import {
  MAX_ANCESTRY_ENTRIES,
  MAX_MERGED_ANCESTRY_ENTRIES,
  mergedLink,
  operationChildLink,
  rootLink,
  unknownLink,
} from './causal-link.js';

/**
 * A graph of Triggers: an edge X → Y says an execution of X records an Operation whose verified callback reaches Y.
 * A walk follows edges from a root Occurrence, one Operation per hop, exactly as the ingress links them.
 */
const graphs = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 3 * n }),
    start: fc.nat(n - 1),
    choices: fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
  }),
);

interface Step {
  triggerId: string;
  link: CausalLink;
  /** The Triggers of the chain before this Occurrence, root first. */
  before: string[];
}

/** The walk's Occurrences, each with the link it was recorded with, until a dead end or the first revisited Trigger. */
function walk(edges: Array<[number, number]>, start: number, choices: number[]): Step[] {
  const steps: Step[] = [{ triggerId: `t${start}`, link: rootLink(), before: [] }];
  let at = start;
  for (const [i, choice] of choices.entries()) {
    const next = edges.filter(([from]) => from === at).map(([, to]) => to);
    if (next.length === 0) break;
    const current = steps[steps.length - 1]!;
    const to = next[choice % next.length]!;
    const link = operationChildLink(
      { occurrenceId: `o${i}`, triggerId: current.triggerId, causal: current.link },
      `op${i}`,
    );
    steps.push({ triggerId: `t${to}`, link, before: [...current.before, current.triggerId] });
    if (current.before.includes(`t${to}`) || current.triggerId === `t${to}`) break; // blocked: it runs nothing
    at = to;
  }
  return steps;
}

describe('CA-3 loop check over random graphs of Triggers and Operations (property)', () => {
  it('CA-3 blocks causal_loop exactly when the new Occurrence’s Trigger is already in its chain (cycles of any length)', () => {
    fc.assert(
      fc.property(graphs, ({ edges, start, choices }) => {
        for (const step of walk(edges, start, choices)) {
          const verdict = causalBlock(step.triggerId, step.link, MAX_CAUSAL_DEPTH);
          const closesCycle = step.before.includes(step.triggerId);
          expect(verdict?.reason ?? 'admitted').toBe(closesCycle ? 'causal_loop' : 'admitted');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('CA-3 in a DAG no chain is ever blocked as a loop', () => {
    fc.assert(
      fc.property(graphs, ({ edges, start, choices }) => {
        const acyclic = edges.filter(([from, to]) => from < to) as Array<[number, number]>;
        for (const step of walk(acyclic, start, choices))
          expect(causalBlock(step.triggerId, step.link, MAX_CAUSAL_DEPTH)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('CA-3 depth is checked first: deeper than maxDepth is causal_depth_exceeded, whatever the chain holds', () => {
    fc.assert(
      fc.property(graphs, fc.nat(6), ({ edges, start, choices }, maxDepth) => {
        for (const step of walk(edges, start, choices)) {
          const verdict = causalBlock(step.triggerId, step.link, maxDepth);
          if (step.link.depth > maxDepth) expect(verdict?.reason).toBe('causal_depth_exceeded');
          else
            expect(verdict?.reason ?? 'admitted').toBe(
              step.before.includes(step.triggerId) ? 'causal_loop' : 'admitted',
            );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('CA-1 CA-3 a chain cut at the bound is never admitted, even when the dropped references held the Trigger', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_CAUSAL_DEPTH + 1, max: MAX_CAUSAL_DEPTH + 40 }),
        fc.nat(MAX_CAUSAL_DEPTH),
        (hops, maxDepth) => {
          // t-first starts the chain, then distinct Triggers: only the dropped oldest references name t-first.
          let link = rootLink();
          for (let i = 0; i < hops; i += 1)
            link = operationChildLink(
              { occurrenceId: `o${i}`, triggerId: i === 0 ? 't-first' : `t${i}`, causal: link },
              `op${i}`,
            );
          expect(link.ancestry).toHaveLength(Math.min(2 * hops, MAX_ANCESTRY_ENTRIES));
          expect(link.depth).toBe(hops);
          expect(causalBlock('t-first', link, maxDepth)?.reason).toBe('causal_depth_exceeded');
          expect(causalBlock('t-new', link, maxDepth)?.reason).toBe('causal_depth_exceeded');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('CA-3 a chain showing fewer hops than its depth (cut or miswritten) is blocked, never loop-checked on a partial view', () => {
    const partial: CausalLink = {
      parentId: 'op',
      depth: 3,
      ancestry: [
        { occurrenceId: 'o2', triggerId: 't-b' },
        { operationId: 'op', triggerId: 't-b' },
      ],
    };
    expect(causalBlock('t-a', partial, 4)).toEqual({
      reason: 'causal_depth_exceeded',
      evidence: { depth: 3, maxDepth: 4, truncated: true, hops: 1 },
    });
  });

  it('CA-2 an unknown ancestry links to nothing: never a loop, and its child’s chain starts at the origin', () => {
    expect(causalBlock('t-a', { parentId: null, depth: 0, ancestry: 'unknown' }, 0)).toBeNull();
    const child = operationChildLink(
      { occurrenceId: 'o1', triggerId: 't-a', causal: { parentId: null, depth: 0, ancestry: 'unknown' } },
      'op1',
    );
    expect(child).toEqual({
      parentId: 'op1',
      depth: 1,
      ancestry: [
        { occurrenceId: 'o1', triggerId: 't-a' },
        { operationId: 'op1', triggerId: 't-a' },
      ],
    });
  });

  describe('CA-1 CA-3 an execution standing for several Occurrences (BA-1 batch, DD-5 group) merges their causality', () => {
    /** A linear chain through the given Triggers, each hop one Occurrence and one Operation. */
    const chain = (...triggers: string[]): CausalLink =>
      triggers.reduce(
        (link, triggerId, i) =>
          operationChildLink({ occurrenceId: `o-${triggerId}-${i}`, triggerId, causal: link }, `op-${triggerId}-${i}`),
        rootLink(),
      );

    it('given a root first member and a deep second member, when merged, then the depth is the deepest and the ancestry holds the deep chain', () => {
      const deep = chain('t-a', 't-b');
      const merged = mergedLink([rootLink(), deep]);
      expect(merged.depth).toBe(2);
      expect(merged.ancestry).toEqual(deep.ancestry);
      // The execution's Operation links its callback one deeper, and a loop back to t-a is found.
      const child = operationChildLink({ occurrenceId: 'o-batch', triggerId: 't-q', causal: merged }, 'op-q');
      expect(child.depth).toBe(3);
      expect(causalBlock('t-a', child, 4)?.reason).toBe('causal_loop');
      expect(causalBlock('t-b', child, 4)?.reason).toBe('causal_loop');
      expect(causalBlock('t-c', child, 2)?.reason).toBe('causal_depth_exceeded');
      expect(causalBlock('t-c', child, 4)).toBeNull();
    });

    it('given chains sharing references, when merged, then each reference appears once, root first', () => {
      const ab = chain('t-a', 't-b');
      const a = chain('t-a');
      const merged = mergedLink([a, ab, unknownLink()]);
      expect(merged.ancestry).toEqual(ab.ancestry);
      expect(mergedLink([unknownLink(), rootLink()])).toEqual({ parentId: null, depth: 0, ancestry: 'unknown' });
      expect(mergedLink([rootLink(), rootLink()])).toEqual(rootLink());
    });

    it('given disjoint chains showing more hops than the deepest depth, when checked, then neither the union nor its child is mistaken for too deep', () => {
      const merged = mergedLink([chain('t-a', 't-b'), chain('t-c', 't-d'), chain('t-e', 't-f')]);
      expect(merged.depth).toBe(2);
      expect(causalBlock('t-q', merged, 2)).toBeNull();
      const child = operationChildLink({ occurrenceId: 'o-batch', triggerId: 't-q', causal: merged }, 'op-q');
      expect(causalBlock('t-z', child, 3)).toBeNull();
      expect(causalBlock('t-f', child, 3)?.reason).toBe('causal_loop');
    });

    it('given a union past the count bound, when checked, then it is blocked causal_depth_exceeded, never cut (a cut could drop the Trigger of a cycle)', () => {
      const links = Array.from({ length: 40 }, (_, i) => chain(`t-${i}-a`, `t-${i}-b`));
      const merged = mergedLink(links);
      expect(merged.ancestry).toHaveLength(160);
      expect(causalBlock('t-q', merged, 4)).toEqual({
        reason: 'causal_depth_exceeded',
        evidence: { depth: 2, maxDepth: 4, entries: 160, maxEntries: MAX_MERGED_ANCESTRY_ENTRIES },
      });
      const fits = mergedLink(links.slice(0, MAX_MERGED_ANCESTRY_ENTRIES / 4));
      expect(causalBlock('t-q', fits, 4)).toBeNull();
    });
  });
});
