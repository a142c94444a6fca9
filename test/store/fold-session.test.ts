import { beforeEach, describe, expect, it } from 'vitest';
import { foldSession, type FoldRecord } from '../../src/store/fold-session.js';

// The per-session fold behind derive: lanes (lineages), supersession and owners, checked on small
// sessions by hand. Long sessions must cost their length: these are the paths that once walked every
// stream per reconnect (derive-threads.test.ts checks a soak log's rows against one thread's).

let nextId = 1;
function rec(kind: string, fields: Partial<FoldRecord> = {}): FoldRecord {
  const id = nextId++;
  return {
    id, ts_ms: id * 10, kind, node: null, principal: null, incarnation: null, stream: null, sequence: null, conn: null, via: null,
    reason: null, log_evicted: null, event_id: null, rpc_kind: null, rpc_id: null, method: null, attached: null, last_event_id: null,
    new_stream: null, decision: null, status: null, request_id: null, new_request_id: null, session: 'S', new_session: null, ...fields,
  };
}
const opened = (stream: string, via = 'get', extra: Partial<FoldRecord> = {}) => rec('stream.opened', { stream, via, ...extra });
const sent = (stream: string, event_id: string) => rec('event.sent', { stream, event_id });
const resume = (stream: string, last: string, next: string) =>
  rec('upgrade', { stream, last_event_id: last, new_stream: next, decision: 'resume', status: 200 });
const attach = (next: string) => rec('upgrade', { new_stream: next, decision: 'attach', status: 200 });
const byStream = (f: ReturnType<typeof foldSession>) => Object.fromEntries(f.streams.map((s) => [s.stream, s]));

describe('foldSession', () => {
  beforeEach(() => {
    nextId = 1; // record ids in each test from 1, in the order written
  });

  it('puts a chain of resumptions, hundreds long, on the first stream\'s lane', () => {
    const records = [opened('g0'), sent('g0', '0')];
    for (let i = 1; i <= 300; i++) records.push(resume(`g${i - 1}`, String(i - 1), `g${i}`), sent(`g${i}`, String(i)));
    const f = foldSession(records, 'S');
    expect(new Set(f.streams.map((s) => s.lane))).toEqual(new Set(['g0']));
    expect(f.events.map((e) => e.lane_pos)).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
    // each resumption supersedes the stream it resumes, never the one it opens
    expect(f.streams.filter((s) => s.superseded_id !== null).map((s) => s.stream)).toEqual(Array.from({ length: 300 }, (_, i) => `g${i}`));
  });

  it("joins a lane of several streams to the resumed stream's lane, which keeps its name", () => {
    // q1 and q2 share a sequence (one lane, "seq-q"); a resumption of a opens q1 again: all three are a's lane
    const f = foldSession([opened('a'), sent('a', '1'), opened('q1', 'get', { sequence: 'seq-q' }), opened('q2', 'get', { sequence: 'seq-q' }),
      resume('a', '1', 'q1')], 'S');
    expect(Object.values(byStream(f)).map((s) => s.lane)).toEqual(['a', 'a', 'a']);
  });

  it('an attach supersedes every GET stream opened before it, once, and never the stream it opens', () => {
    const f = foldSession([opened('g1'), opened('g2'), opened('p1', 'post'), attach('g3'), opened('g3'), opened('g4'), attach('g1'), attach('g5')], 'S');
    const s = byStream(f);
    // record ids: g1 1, g2 2, p1 3, attach 4, g3 5, g4 6, attach 7, attach 8
    expect([s.g1!.superseded_id, s.g2!.superseded_id, s.p1!.superseded_id]).toEqual([4, 4, null]);
    expect([s.g3!.superseded_id, s.g4!.superseded_id]).toEqual([7, 7]);
    // the attach that reopened g1 left it alone; g1 was already superseded by the first one anyway
    expect(s.g5!.superseded_id).toBe(null);
  });

  it('an attach leaves the stream it reopens for the next attach to supersede', () => {
    const f = foldSession([opened('g1'), opened('g2'), attach('g1'), attach('g9')], 'S');
    const s = byStream(f);
    expect([s.g1!.superseded_id, s.g2!.superseded_id]).toEqual([4, 3]);
  });

  it('an incarnation created without a principal is owned by the next principal logged, each one its own', () => {
    const f = foldSession([
      rec('session.created'), rec('session.terminated'), rec('session.created'), rec('stream.opened', { stream: 'g', principal: 'alice' }),
      rec('session.created', { principal: 'bob' }), rec('session.created'), rec('event.sent', { stream: 'g', event_id: '1', principal: 'carol' }),
    ], 'S');
    expect(f.incarnations.map((i) => i.owner)).toEqual(['alice', 'alice', 'bob', 'carol']);
  });
});
