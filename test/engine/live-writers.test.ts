import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, observe, resolvePolicy } from '../../src/engine/index.js';
import { buildLog, commands, policyDraw, requestDraw, toRequest } from './generated-log.js';
import { rec, stateOf } from './log.js';

// A decision's fence is listed when first read (engine/live-writers.ts): these hold it to
// the writers as they were when it was decided, and the node check to the writers' nodes.

describe('live writers', () => {
  it("lists a decision's fence as the writers were when it was decided, whatever the log does next", () => {
    fc.assert(
      fc.property(commands, requestDraw, policyDraw, fc.nat(), (draws, draw, partial, cut) => {
        const log = buildLog(draws);
        const at = cut % (log.records.length + 1);
        const state = stateOf(log.records.slice(0, at));
        const request = toRequest(draw, log);
        const policy = resolvePolicy(partial);
        // The same question on the same state built again, its fence read at once: what the writers were.
        const then = decide(stateOf(log.records.slice(0, at)), request, policy).fence;
        const decision = decide(state, request, policy);
        for (const r of log.records.slice(at)) observe(state, r);
        expect(decision.fence).toEqual(then);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a decision's fence when a writer it lists closes, or one seen earlier opens again, after it", () => {
    const state = stateOf([
      rec('session.created', 0),
      rec('stream.opened', 1, { stream: 'g1', via: 'get' }),
      rec('event.sent', 2, { stream: 'g1', eventId: '1' }),
      rec('upgrade', 3, { stream: 'g1', lastEventId: '1', newStream: 'g2', decision: 'resume', status: 200 }),
      rec('event.sent', 4, { stream: 'g2', eventId: '2' }),
    ]);
    const first = decide(state, { sessionId: 'S1', lastEventId: '2', tsMs: rec('x', 5).tsMs });
    observe(state, rec('stream.closed', 5, { stream: 'g1' })); // taken out of the list the decision holds
    const second = decide(state, { sessionId: 'S1', lastEventId: '2', tsMs: rec('x', 6).tsMs });
    observe(state, rec('stream.opened', 6, { stream: 'g1', via: 'get' })); // back in, before g2
    expect(first.fence).toEqual(['g1', 'g2']);
    expect(second.fence).toEqual(['g2']);
    expect(decide(state, { sessionId: 'S1', lastEventId: '2', tsMs: rec('x', 7).tsMs }).fence).toEqual(['g1', 'g2']);
  });

  it('counts a writer on the node it names after it opened, until it closes', () => {
    const opened = [
      rec('session.created', 0, { node: 'n1' }),
      rec('stream.opened', 1, { stream: 'g1', via: 'get' }), // no node yet
      rec('event.sent', 2, { stream: 'g1', eventId: '1' }),
    ];
    const ask = { sessionId: 'S1', lastEventId: '1', tsMs: rec('x', 3).tsMs, node: 'n1' };
    expect(decide(stateOf(opened), ask).fence).toEqual(['g1']);
    const named = [...opened, rec('event.sent', 2, { stream: 'g1', eventId: '2', node: 'n2' })];
    expect(decide(stateOf(named), { ...ask, lastEventId: '2' })).toMatchObject({ decision: 'reject', checks: ['prior_writer_unfenceable'] });
    const closed = [...named, rec('stream.closed', 3, { stream: 'g1' })];
    expect(decide(stateOf(closed), { ...ask, lastEventId: '2' })).toMatchObject({ decision: 'resume', fence: [] });
  });

  it('counts the writers of a lineage joined to another on their nodes', () => {
    // a (on n2) and b (on n1) are two lineages until a resume of a from b's event joins a's lineage to b's
    const log = [
      rec('session.created', 0),
      rec('stream.opened', 1, { stream: 'a', via: 'get', node: 'n2' }),
      rec('stream.opened', 1, { stream: 'b', via: 'get', node: 'n1' }),
      rec('event.sent', 2, { stream: 'b', eventId: 'b1' }),
      rec('upgrade', 3, { stream: 'a', lastEventId: 'b1', newStream: 'c', decision: 'resume', status: 200, node: 'n1' }),
      rec('event.sent', 4, { stream: 'c', eventId: 'c1' }),
    ];
    const ask = { sessionId: 'S1', lastEventId: 'b1', tsMs: rec('x', 5).tsMs, node: 'n1' };
    expect(decide(stateOf(log), ask)).toMatchObject({ decision: 'reject', checks: ['prior_writer_unfenceable'] });
    expect(decide(stateOf([...log, rec('stream.closed', 5, { stream: 'a' })]), ask)).toMatchObject({ decision: 'resume', fence: ['b', 'c'] });
  });

  it('forgets a lineage once none of its writers is live: a long session keeps only its live ones', () => {
    const log = [rec('session.created', 0), rec('stream.opened', 0, { stream: 'g1', via: 'get' })];
    for (let i = 0; i < 100; i++) log.push(rec('stream.opened', i, { stream: `p${i}`, via: 'post' }), rec('stream.closed', i, { stream: `p${i}` }));
    const inc = stateOf(log).incarnations[0]!;
    expect([...inc.live.keys()]).toEqual(['g1']);
    const again = stateOf([...log, rec('stream.opened', 101, { stream: 'p3', via: 'post' })]).incarnations[0]!; // a reused id, live again
    expect([...again.live.keys()].sort()).toEqual(['g1', 'p3']);
  });

  it('a server that logs no stream.closed: each resumption fences every earlier stream, and an earlier decision keeps its own', () => {
    const state = stateOf([rec('session.created', 0), rec('stream.opened', 0, { stream: 'g0', via: 'get' })]);
    const decisions: string[][] = [];
    const kept: { fence: string[] }[] = [];
    for (let i = 1; i <= 300; i++) {
      observe(state, rec('event.sent', i, { stream: `g${i - 1}`, eventId: String(i) }));
      const d = decide(state, { sessionId: 'S1', lastEventId: String(i), tsMs: rec('x', i).tsMs });
      if (i % 50 === 0) kept.push(d);
      else decisions.push(d.fence);
      observe(state, rec('upgrade', i, { stream: `g${i - 1}`, lastEventId: String(i), newStream: `g${i}`, decision: 'resume', status: 200 }));
    }
    expect(decisions[0]).toEqual(['g0']);
    expect(decisions.at(-1)).toEqual(Array.from({ length: 299 }, (_, i) => `g${i}`)); // the 299th resumption
    kept.forEach((d, k) => expect(d.fence).toEqual(Array.from({ length: 50 * (k + 1) }, (_, i) => `g${i}`)));
  });
});
