import { RULE_IDS } from '../../src/detect/rules/index.js';
import { describe, expect, it } from 'vitest';
import { explainEngineDivergences } from '../../src/detect/rules/engine-divergence.js';
import type { RawFinding } from '../../src/detect/types.js';
import { FindingTable } from '../../src/detect/finding-table.js';
import { openDb } from '../../src/store/db.js';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';

const RULE = 'engine-divergence';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const closed = (ms: number) => ({ ts: at(ms), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client' });
const upgrade = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', ...fields });

// Events 1, 2, 3 on g1, which the client then dropped.
const history: LogLine[] = [created, opened, sent(1000, 1), sent(2000, 2), sent(3000, 3), closed(4000)];

describe('engine-divergence', () => {
  it('flags a resume of an evicted position, names the trim, and says silent-truncation explains it', async () => {
    const report = await analyzeLines([
      ...history, // 1-6
      { ts: at(30_000), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 3 }, // 7
      upgrade(31_000, { last_event_id: 1, decision: 'resume', status: 200, replayed: 1, first_replayed: 3 }), // 8
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.severity).toBe('info');
    expect(f!.session).toBe('S1');
    expect(f!.at).toBe(at(31_000));
    expect(f!.message).toBe(
      'server resumed S1 from 1 (200); a correct server would reject 409 resumption_unavailable: position_evicted (explained by: silent-truncation)',
    );
    expect(evidenceLines(f!)).toEqual([7, 8]);
  });

  // Two nodes sharing a store, a server that logs no stream.closed: every earlier stream on the other node is a live
  // writer this node cannot fence, and each resumption is refused by the engine.
  const onTwoNodes = (streams: number): LogLine[] => {
    const lines: LogLine[] = [created, { ...opened, stream: 's0', node: 'b' }];
    for (let k = 1; k <= streams; k++) {
      lines.push({ ts: at(k * 1000), kind: 'event.sent', session: 'S1', stream: `s${k - 1}`, event_id: k, node: k % 2 ? 'b' : 'a' });
      lines.push({ ts: at(k * 1000 + 500), kind: 'upgrade', session: 'S1', stream: `s${k - 1}`, new_stream: `s${k}`, last_event_id: k, decision: 'resume', status: 200, node: k % 2 ? 'a' : 'b' });
    }
    return lines;
  };

  it('cites the latest 20 writers on another node, and says how many there were', async () => {
    const report = await analyzeLines(onTwoNodes(50));
    const last = findingsOf(report, RULE).at(-1)!;
    // the 50th resumption, on node b: the 25 streams node a opened (s1, s3, ..., s49) are live writers it cannot fence
    expect(last.message).toContain('prior_writer_unfenceable (25 live writers on another node; the latest 20 cited)');
    // the k-th upgrade (line 2k + 2) opened s<k>: s11, s13, ..., s49 opened on lines 24, 28, ..., 100; the 50th is line 102
    const openings = Array.from({ length: 20 }, (_, i) => 2 * (11 + 2 * i) + 2);
    expect(evidenceLines(last)).toEqual([...openings, 102]);
  });

  it('cites every writer on another node when there are 20 or fewer, with no count', async () => {
    const report = await analyzeLines(onTwoNodes(40));
    const last = findingsOf(report, RULE).at(-1)!;
    expect(last.message).not.toContain('live writers on another node');
    expect(evidenceLines(last)).toHaveLength(21); // s1, s3, ..., s39 and the upgrade
  });

  it('flags a fresh session served to an unknown session id, explained by silent-fork', async () => {
    const report = await analyzeLines([
      created, // 1
      upgrade(5000, { session: 'S9', stream: undefined, last_event_id: 3, decision: 'fresh', status: 200, new_session: 'S9' }), // 2
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S9');
    expect(f!.message).toBe(
      'server served S9 from 3 fresh (200, new session S9); a correct server would reject 404 session_not_found (explained by: silent-fork)',
    );
    expect(evidenceLines(f!)).toEqual([2]);
  });

  it('asks the engine before a re-mint logged in the same millisecond as the resume it answered', async () => {
    const report = await analyzeLines([
      ...history, // 1-6
      { ts: at(10_000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' }, // 7
      { ts: at(20_000), kind: 'session.created', session: 'S1' }, // 8: the server re-minted S1 to answer the resume
      upgrade(20_000, { last_event_id: 2, decision: 'resume', status: 200, replayed: 1 }), // 9
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toMatch(/^server resumed S1 from 2 \(200\); a correct server would reject 404 session_not_found \(explained by: .*silent-fork/);
    expect(evidenceLines(f!)).toEqual([7, 9]);
  });

  it('says no rule explains it when the server refused a resume every check allows', async () => {
    const report = await analyzeLines([
      ...history, // 1-6
      upgrade(5000, { last_event_id: 2, decision: 'reject', status: 409, reason: 'resumption_unavailable', new_stream: undefined }), // 7
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe(
      'server rejected S1 from 2 (409 resumption_unavailable); a correct server would resume it, replaying 1 event (3) (no rule explains it)',
    );
    // The emission of event 2 is what the engine resumes from.
    expect(evidenceLines(f!)).toEqual([4, 7]);
  });

  it('flags a Last-Event-ID without session that was accepted, explained by event-id-without-session', async () => {
    const report = await analyzeLines([
      ...history,
      { ts: at(5000), kind: 'upgrade', session: null, last_event_id: 2, decision: 'resume', status: 200, new_stream: 'g9', replayed: 1 }, // 7
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.session).toBeNull();
    expect(f!.message).toBe(
      'server resumed Last-Event-ID 2 without a session (200); a correct server would reject 400 event_id_without_session (explained by: event-id-without-session)',
    );
    expect(evidenceLines(f!)).toEqual([7]);
  });

  it('does not flag answers a correct server gives too', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S1' }, // initialize
      ...history,
      // a resume the engine accepts as well: position retained, window complete
      upgrade(5000, { last_event_id: 2, decision: 'resume', status: 200, replayed: 1, first_replayed: 3 }),
      { ts: at(5001), kind: 'stream.closed', session: 'S1', stream: 'g2', reason: 'client' },
      // 404 for a session the log never created
      upgrade(6000, { session: 'S7', stream: undefined, new_stream: undefined, last_event_id: 5, decision: 'reject', status: 404, reason: 'session_not_found' }),
      // an evicted position answered with a told reset: a new distinct id and reset_signalled
      { ts: at(40_000), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 3 },
      upgrade(41_000, { stream: 'g2', new_stream: undefined, last_event_id: 1, decision: 'fresh', status: 200, new_session: 'S2', reset_signalled: true }),
      // a 409 where the class agrees although the engine would give another reason
      upgrade(42_000, { stream: 'g2', new_stream: undefined, last_event_id: 77, decision: 'reject', status: 409 }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  // Seed 001: with a prior writer not confirmed dead, a server may "reject resumption until the
  // fence completes or the grace period expires". Fencing first and accepting is the engine's way;
  // a 409 while fencing within the grace is the other correct one.
  const liveWriter: LogLine[] = [created, opened, sent(1000, 1), sent(2000, 2)];
  const conflict = (ms: number) => upgrade(ms, { last_event_id: 2, decision: 'reject', status: 409, reason: 'writer_busy' });
  const fenced = (ms: number) => ({ ts: at(ms), kind: 'stream.fenced', session: 'S1', stream: 'g1' });

  it('does not flag a 409 while the server fences the live prior writer within the fence grace', async () => {
    const report = await analyzeLines([...liveWriter, conflict(3000), conflict(5000), fenced(7900), upgrade(8000, { last_event_id: 2, decision: 'resume', status: 200, replayed: 0 })]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'stale-writer-blocks-reconnect')).toEqual([]);
  });

  it('flags a 409 whose prior writer was not fenced within the grace, explained by stale-writer-blocks-reconnect', async () => {
    const report = await analyzeLines([...liveWriter, conflict(3000), fenced(8100)]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('server rejected S1 from 2 (409 writer_busy); a correct server would resume it');
    expect(f!.message).toContain('(explained by: stale-writer-blocks-reconnect)');
  });

  // the log ends 3 s after the refusal, the writer still up: neither a fence within the grace nor a stale writer yet
  it('does not judge a 409 whose grace the log ends inside, and says so', async () => {
    const report = await analyzeLines([...liveWriter, conflict(3000), sent(6000, 3)]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const said = report.not_knowable.filter((n) => n.rule === RULE);
    expect(said).toEqual([{ rule: RULE, session: 'S1', reason: expect.stringMatching(/log ends within the 5 s fence grace period after the reconnect refused at .*T10:00:03.000Z/) }]);
  });

  it('judges a 409 inside whose grace the log ends, when an earlier refusal already waited out the grace on that writer', async () => {
    const report = await analyzeLines([...liveWriter, conflict(3000), conflict(9000), sent(10_000, 3)]);
    expect(findingsOf(report, RULE)).toHaveLength(2);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('judges a 409 whose grace the log outlasts, the writer still up', async () => {
    const report = await analyzeLines([...liveWriter, conflict(3000), sent(8001, 3)]);
    expect(findingsOf(report, RULE)).toHaveLength(1);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('flags a 409 for another reason than a writer, even when the old stream ends soon after', async () => {
    const report = await analyzeLines([...liveWriter, upgrade(3000, { last_event_id: 2, decision: 'reject', status: 409, reason: 'resumption_unavailable' }), fenced(3500)]);
    expect(findingsOf(report, RULE)).toHaveLength(1);
  });

  it('is not knowable for a log that starts after the session was created', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 41 },
      { ts: at(2000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 42 },
      upgrade(3000, { last_event_id: 41, decision: 'resume', status: 200, replayed: 1 }),
      upgrade(4000, { last_event_id: 42, stream: 'g2', new_stream: 'g3', decision: 'resume', status: 200, replayed: 0 }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk).toHaveLength(1);
    expect(nk[0]!.session).toBe('S1');
    expect(nk[0]!.reason).toContain('the log starts after S1 was created');
  });

  it('judges a log that starts mid-session where any earlier history gives the same answer', async () => {
    const midSession = [
      { ts: at(1000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 41 },
      { ts: at(2000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 42 },
    ];
    // An event id above every one the session sent: a correct server rejects it, whatever came before.
    const above = await analyzeLines([...midSession, upgrade(3000, { last_event_id: 99, decision: 'resume', status: 200, replayed: 0 })]);
    expect(findingsOf(above, RULE).map((f) => f.message)).toEqual([expect.stringContaining('(explained by: phantom-event-id')]);
    // Compared as numbers, not as text: 100 is above 9 and 42; 0042 is 42, not above it.
    const nine = [...midSession, { ts: at(2100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 9 }];
    const hundred = await analyzeLines([...nine, upgrade(3000, { last_event_id: 100, decision: 'resume', status: 200, replayed: 0 })]);
    expect(findingsOf(hundred, RULE)).toHaveLength(1);
    const same = await analyzeLines([...nine, upgrade(3000, { last_event_id: '0042', decision: 'resume', status: 200, replayed: 0 })]);
    expect(findingsOf(same, RULE)).toEqual([]);
    expect(same.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([expect.stringContaining('the log starts after S1 was created')]);
    // The log shows the session ended: a correct server rejects any reconnect of it.
    const ended = await analyzeLines([
      ...midSession,
      { ts: at(2500), kind: 'session.terminated', session: 'S1', reason: 'client_delete' },
      upgrade(3000, { last_event_id: null, stream: undefined, decision: 'attach', status: 200, replayed: 0 }),
    ]);
    expect(findingsOf(ended, RULE).map((f) => f.message)).toEqual([expect.stringContaining('(explained by: resume-after-end)')]);
  });

  it('is not knowable for a session only a proxy logged', async () => {
    const get = (ms: number, headers: Record<string, string>) => ({
      ts: at(ms),
      kind: 'http',
      method: 'GET',
      path: '/mcp',
      status: 200,
      req_headers: headers,
      resp_headers: { 'content-type': 'text/event-stream' },
    });
    const report = await analyzeLines([get(0, { 'mcp-session-id': 'P1' }), get(5000, { 'mcp-session-id': 'P1', 'last-event-id': '5' })]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.session)).toEqual(['P1']);
    expect(nk[0]!.reason).toMatch(/^proxy log only/);
  });

  // Seed 000: "Mcp-Session-Id absent, Last-Event-ID present → reject". The headers alone decide,
  // and a proxy sees the headers.
  it('flags a Last-Event-ID without a session that a proxy saw accepted', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'last-event-id': '17' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBeNull();
    expect(f!.message).toContain('(explained by: event-id-without-session)');
  });
});

describe('explainEngineDivergences', () => {
  const raw = (rule: RawFinding['rule'], evidenceIds: number[]): RawFinding => ({ rule, session: 'S1', atMs: 0, message: rule, evidenceIds });

  it('names the rules whose evidence holds the divergent upgrade, in catalogue order, and only those', () => {
    const db = openDb(':memory:');
    const table = FindingTable.create(db);
    table.add([raw('dual-writer', [3, 9])]);
    table.add([raw('engine-divergence', [4, 9]), raw('engine-divergence', [4, 12]), raw('engine-divergence', [])]);
    table.add([raw('silent-truncation', [2, 9])]);
    table.add([raw('orphaned-request', [4])]); // cites the trim the divergence names, not its upgrade
    explainEngineDivergences(table, RULE_IDS);
    // Timeline order: the same time and session, so by rule, then message.
    expect(table.seal().toArray().map((f) => f.message)).toEqual([
      'dual-writer',
      'engine-divergence (explained by: silent-truncation, dual-writer)',
      'engine-divergence (no rule explains it)',
      'engine-divergence (no rule explains it)',
      'orphaned-request',
      'silent-truncation',
    ]);
    db.close();
  });
});
