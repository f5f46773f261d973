import fc from 'fast-check';
import { MAX_CAUSAL_DEPTH } from '../mission/mission-grants.js';
import type { CausalLink } from '../occurrence/occurrence-events.js';
import { causalBlock } from './causal-check.js';
import { MAX_ANCESTRY_ENTRIES, operationChildLink, rootLink } from './causal-link.js';

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
});
