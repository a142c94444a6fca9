import { beforeEach, describe, expect, it } from 'vitest';
import { foldSession, isEmission, sessionFolder, type FoldRecord } from '../../src/store/fold-session.js';

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

  it('lets each resumption from one position supersede the live head the previous one opened, hundreds of times', () => {
    const records = [opened('g0'), sent('g0', '0')];
    for (let i = 1; i <= 300; i++) records.push(resume('g0', '0', `g${i}`));
    const s = byStream(foldSession(records, 'S'));
    // g0 by the first (record 3); g_i, the head when the next resumption came, by that next one (record 3 + i)
    expect(s.g0!.superseded_id).toBe(3);
    for (let i = 1; i < 300; i++) expect(s[`g${i}`]!.superseded_id, `g${i}`).toBe(3 + i);
    expect(s.g300!.superseded_id).toBe(null);
  });

  it('walks no loop where a resumption reuses an earlier stream id as its new stream', () => {
    // g1 → g2, then g2 resumed onto g1 again: g1 and g2 each other's successors; a third resumption of g1 ends
    const f = foldSession([opened('g1'), sent('g1', '1'), resume('g1', '1', 'g2'), resume('g2', '1', 'g1'), resume('g1', '1', 'g3')], 'S');
    const s = byStream(f);
    expect([s.g1!.superseded_id, s.g2!.superseded_id, s.g3!.superseded_id]).toEqual([3, 4, null]);
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

describe('a fold whose event rows are made from its emissions read again', () => {
  beforeEach(() => {
    nextId = 1;
  });

  const requestSent = (stream: string | null, event_id: string | null, request_id: string) =>
    rec('request.sent', { stream, event_id, request_id, method: 'sampling/createMessage' });

  /** Both ways of finishing one fold of `records`: rows made from kept emissions, and from those read again. */
  function bothWays(records: FoldRecord[]) {
    const whole = foldSession(records, 'S');
    const folder = sessionFolder('S', { keepEmissions: false });
    for (const r of records) folder.add(r);
    const streamed = folder.finishStreamed(records.filter(isEmission));
    return { whole, streamed: { ...streamed, events: [...streamed.events] } };
  }

  it('makes the rows a whole fold makes: lanes linked at the end, carried requests not rows of their own', () => {
    const records = [
      opened('a'), sent('a', '1'),
      // a request.sent logged before, and one after, the event.sent that carried it: one row each, the event's
      requestSent('a', '2', 'r1'), sent('a', '2'), sent('a', '3'), requestSent('a', '3', 'r2'),
      // the same event id on two streams: the request names b's, which b sent before a sent it again
      opened('b'), sent('b', '9'), sent('a', '9'), requestSent('b', '9', 'r3'),
      // a request.sent whose carrier is missing, and one on no stream: rows of their own where a stream is known
      requestSent('a', '7', 'r4'), requestSent(null, '8', 'r5'),
      // resumptions link b and then c into a's lane: lane_pos counts along the linked lane
      resume('b', '9', 'c'), opened('c'), sent('c', '10'), resume('a', '10', 'b'), sent('b', '11'),
      rec('event.sent', { event_id: '12' }), // no stream: no row
    ];
    const { whole, streamed } = bothWays(records);
    expect(whole.events.length).toBeGreaterThan(6);
    // each request is on the row of its carrier (r3 on both events of id 9: a request names its event by id), r5 on none
    expect(whole.events.map((e) => e.request_id).filter((r) => r !== null)).toEqual(['r1', 'r2', 'r3', 'r3', 'r4']);
    expect(streamed).toEqual(whole);
  });

  it('makes a long session\'s rows without keeping its emissions', () => {
    const records: FoldRecord[] = [opened('g0')];
    for (let i = 1; i <= 2000; i++) {
      records.push(sent(`g${i - 1}`, String(2 * i)), requestSent(`g${i - 1}`, String(2 * i), `q${i}`), resume(`g${i - 1}`, String(2 * i), `g${i}`));
      records.push(sent(`g${i}`, String(2 * i + 1)));
    }
    const { whole, streamed } = bothWays(records);
    expect(new Set(whole.events.map((e) => e.lane))).toEqual(new Set(['g0']));
    expect(streamed).toEqual(whole);
  });

  it('has only the streamed finish when it keeps no emissions', () => {
    const folder = sessionFolder('S', { keepEmissions: false });
    folder.add(opened('a'));
    expect(() => folder.finish()).toThrow(/finishStreamed/);
  });
});
