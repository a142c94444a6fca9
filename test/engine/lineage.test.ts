import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createState, observe } from '../../src/engine/state.js';
import { lineageMembers, liveLineageMembers } from '../../src/engine/lineage.js';
import type { EngineRecord } from '../../src/engine/types.js';

// A lineage's members are kept per root as streams are linked (decide() reads them on every
// resumption); they come back in the order the incarnation first saw the streams, as a filter
// of all its streams would give them.

function stateOf(records: Omit<EngineRecord, 'tsMs'>[]) {
  const state = createState();
  records.forEach((r, i) => observe(state, { tsMs: i, session: 'S', ...r }));
  return state.incarnations.at(-1)!;
}
const ids = (members: readonly { id: string }[]) => members.map((m) => m.id);

/** A session whose streams a and c share a sequence, and so do b and d: two lineages, (a, c) and (b, d). */
const TWO_SEQUENCES: Omit<EngineRecord, 'tsMs'>[] = [
  { kind: 'session.created' },
  { kind: 'stream.opened', stream: 'a', via: 'get', sequence: 'p' },
  { kind: 'stream.opened', stream: 'b', via: 'get', sequence: 'r' },
  { kind: 'stream.opened', stream: 'c', via: 'get', sequence: 'p' },
  { kind: 'stream.opened', stream: 'd', via: 'get', sequence: 'r' },
];

describe('lineageMembers', () => {
  it('joins two lineages in the order their streams were first seen', () => {
    // resuming a onto b links b's lineage (b, d) to a's (a, c)
    const inc = stateOf([
      ...TWO_SEQUENCES,
      { kind: 'event.sent', stream: 'a', eventId: '1' },
      { kind: 'upgrade', stream: 'a', lastEventId: '1', newStream: 'b', decision: 'resume', status: 200 },
    ]);
    expect(ids(lineageMembers(inc, 'd'))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(lineageMembers(inc, 'a'))).toEqual(['a', 'b', 'c', 'd']);
  });

  it("gives a lineage's live members, in the order first seen, as its members filtered would be", () => {
    // a resumption of a onto b joins the two lineages; e stands apart; a closes, d is fenced, b reopens
    const inc = stateOf([
      ...TWO_SEQUENCES,
      { kind: 'stream.opened', stream: 'e', via: 'get' },
      { kind: 'event.sent', stream: 'a', eventId: '1' },
      { kind: 'stream.closed', stream: 'a' },
      { kind: 'upgrade', stream: 'a', lastEventId: '1', newStream: 'b', decision: 'resume', status: 200 },
      { kind: 'stream.fenced', stream: 'd' },
      { kind: 'stream.closed', stream: 'b' },
      { kind: 'stream.opened', stream: 'b', via: 'get', sequence: 'r' }, // live again, last to become so
    ]);
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(liveLineageMembers(inc, id)).toEqual(lineageMembers(inc, id).filter((s) => !s.closed && !s.fenced));
    expect(ids(liveLineageMembers(inc, 'd'))).toEqual(['b', 'c']);
    expect(ids(liveLineageMembers(inc, 'e'))).toEqual(['e']);
  });

  it('keeps a chain of resumptions thousands long as one lineage, and others apart', () => {
    const records: Omit<EngineRecord, 'tsMs'>[] = [{ kind: 'session.created' }, { kind: 'stream.opened', stream: 'g0', via: 'get' }, { kind: 'stream.opened', stream: 'p', via: 'post' }];
    for (let i = 1; i <= 2000; i++) {
      records.push({ kind: 'event.sent', stream: `g${i - 1}`, eventId: String(i) });
      records.push({ kind: 'upgrade', stream: `g${i - 1}`, lastEventId: String(i), newStream: `g${i}`, decision: 'resume', status: 200 });
    }
    const inc = stateOf(records);
    expect(ids(lineageMembers(inc, 'g2000'))).toEqual(Array.from({ length: 2001 }, (_, i) => `g${i}`));
    expect(ids(lineageMembers(inc, 'p'))).toEqual(['p']);
  });

  it('keeps the order first seen in the state itself: a clone of it gives the same live writers in the same order', () => {
    // x is seen first; the chain y0..y4 is longer, so joining x to it puts x after y4 in the live set: only the
    // order first seen, kept on each stream, brings x first again, in the state and in any clone of it
    const records: Omit<EngineRecord, 'tsMs'>[] = [{ kind: 'session.created' }, { kind: 'stream.opened', stream: 'x', via: 'get' }, { kind: 'event.sent', stream: 'x', eventId: 'x1' }];
    records.push({ kind: 'stream.opened', stream: 'y0', via: 'get' });
    for (let i = 1; i <= 4; i++) {
      records.push({ kind: 'event.sent', stream: `y${i - 1}`, eventId: `y${i}` });
      records.push({ kind: 'upgrade', stream: `y${i - 1}`, lastEventId: `y${i}`, newStream: `y${i}`, decision: 'resume', status: 200 });
    }
    records.push({ kind: 'upgrade', stream: 'y4', lastEventId: 'x1', newStream: 'z', decision: 'resume', status: 200 });
    const inc = stateOf(records);
    expect(ids(liveLineageMembers(inc, 'z'))).toEqual(['x', 'y0', 'y1', 'y2', 'y3', 'y4', 'z']);
    expect(ids(liveLineageMembers(structuredClone(inc), 'z'))).toEqual(ids(liveLineageMembers(inc, 'z')));
  });

  it('an attach every few streams joins every standalone lineage into one, its members in the order first seen', () => {
    // Resumptions refused (nothing links), a new GET stream every round, an attach every third: each attach links its
    // new stream to every standalone lineage, the long one among them, in whichever order the roots fall.
    const records: Omit<EngineRecord, 'tsMs'>[] = [{ kind: 'session.created' }];
    const opened: string[] = [];
    for (let i = 1; i <= 300; i++) {
      const id = i % 3 === 0 ? `a${i}` : `g${i}`;
      if (i % 3 === 0) records.push({ kind: 'upgrade', newStream: id, decision: 'attach', status: 200 });
      else records.push({ kind: 'upgrade', stream: `g${i - 1}`, lastEventId: '1', decision: 'reject', status: 409 }, { kind: 'stream.opened', stream: id, via: 'get' });
      opened.push(id);
    }
    const inc = stateOf(records);
    expect(ids(lineageMembers(inc, 'a300'))).toEqual(opened);
    expect(ids(lineageMembers(inc, 'g1'))).toEqual(opened);
  });

  it('an attach supersedes every earlier standalone stream, one reopened since included, and continues all their lineages', () => {
    const inc = stateOf([
      { kind: 'session.created' },
      { kind: 'stream.opened', stream: 'g1', via: 'get' },
      { kind: 'stream.opened', stream: 'g2', via: 'get' },
      { kind: 'stream.opened', stream: 'p', via: 'post' },
      { kind: 'upgrade', newStream: 'g3', decision: 'attach', status: 200 },
      { kind: 'stream.opened', stream: 'g1', via: 'get' }, // the id reused: live again
      { kind: 'upgrade', newStream: 'g4', decision: 'attach', status: 200 },
    ]);
    const state = (id: string) => ({ superseded: inc.streams.get(id)!.superseded, end: inc.streams.get(id)!.end?.pos });
    expect(['g1', 'g2', 'g3', 'g4', 'p'].map(state)).toEqual([
      { superseded: true, end: 6 }, // superseded again by the second attach (records from 0)
      { superseded: true, end: 4 },
      { superseded: true, end: 6 },
      { superseded: false, end: undefined },
      { superseded: false, end: undefined },
    ]);
    expect(ids(lineageMembers(inc, 'g4'))).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(ids(lineageMembers(inc, 'p'))).toEqual(['p']);
  });
  it('an attach supersedes a stream a shared sequence joined to the standalone lineage, and no POST lineage however many', () => {
    const records: Omit<EngineRecord, 'tsMs'>[] = [{ kind: 'session.created' }, { kind: 'stream.opened', stream: 'g1', via: 'get', sequence: 's' }];
    // a long polling session's leftovers: POST lineages, each resumed once and closed
    for (let i = 0; i < 50; i++) {
      records.push({ kind: 'stream.opened', stream: `p${i}`, via: 'post' }, { kind: 'event.sent', stream: `p${i}`, eventId: `e${i}` });
      records.push({ kind: 'upgrade', stream: `p${i}`, lastEventId: `e${i}`, newStream: `p${i}r`, decision: 'resume', status: 200 });
      records.push({ kind: 'stream.closed', stream: `p${i}r`, reason: 'client' });
    }
    records.push({ kind: 'stream.opened', stream: 'x', via: 'post', sequence: 's' }); // joins g1's lineage: standalone
    records.push({ kind: 'upgrade', newStream: 'g2', decision: 'attach', status: 200 });
    const inc = stateOf(records);
    const superseded = [...inc.streams.values()].filter((s) => s.superseded).map((s) => s.id);
    expect(superseded.filter((id) => !/^p\d+$/.test(id))).toEqual(['g1', 'x']); // each p<i> was superseded by its own resume
    expect(inc.streams.get('p7r')!.superseded).toBe(false);
    expect(ids(lineageMembers(inc, 'g2'))).toEqual(['g1', 'x', 'g2']);
  });

  it("keeps each lineage's live writers in the order first seen, whatever opens, closes, fences, resumes and attaches", () => {
    // The ordered live lists are kept as the state changes (a resumption reads them, never sorts them): after every
    // record, each stream's live writers are its lineage's members that are neither closed nor fenced.
    const streamId = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    const step = fc.oneof(
      fc.record({ kind: fc.constant('stream.opened' as const), stream: streamId, via: fc.constantFrom('get', 'post'), sequence: fc.option(fc.constantFrom('s', 't'), { nil: undefined }) }),
      fc.record({ kind: fc.constantFrom('stream.closed' as const, 'stream.fenced' as const), stream: streamId }),
      fc.record({ kind: fc.constant('event.sent' as const), stream: streamId, eventId: fc.constantFrom('1', '2', '3') }),
      fc.record({ kind: fc.constant('upgrade' as const), stream: streamId, lastEventId: fc.constantFrom('1', '2', '3'), newStream: streamId, decision: fc.constant('resume'), status: fc.constant(200) }),
      fc.record({ kind: fc.constant('upgrade' as const), newStream: streamId, decision: fc.constant('attach'), status: fc.constant(200) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const state = createState();
        observe(state, { tsMs: 0, session: 'S', kind: 'session.created' });
        steps.forEach((r, i) => {
          observe(state, { tsMs: i + 1, session: 'S', ...r } as EngineRecord);
          const inc = state.incarnations.at(-1)!;
          for (const id of inc.streams.keys()) {
            expect(ids(liveLineageMembers(inc, id))).toEqual(ids(lineageMembers(inc, id).filter((s) => !s.closed && !s.fenced)));
          }
        });
      }),
      { numRuns: 300 },
    );
  });
});
