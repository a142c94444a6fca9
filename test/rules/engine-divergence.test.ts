import { RULE_IDS, ruleOf } from '../../src/detect/rules/index.js';
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

  it('says which rules did not run where none that ran explains it: one switched off might have', async () => {
    const lines = [...history, { ts: at(30_000), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 3 }, upgrade(31_000, { last_event_id: 1, decision: 'resume', status: 200, replayed: 1, first_replayed: 3 })];
    const report = await analyzeLines(lines, { disabled: ['silent-truncation'] });
    expect(findingsOf(report, RULE).map((f) => f.message)).toEqual([expect.stringMatching(/position_evicted \(no rule that ran explains it; not run: silent-truncation\)$/)]);
  });

  it('cites the latest 20 writers on another node, and says how many there were', async () => {
    const report = await analyzeLines(onTwoNodes(50));
    const last = findingsOf(report, RULE).at(-1)!;
    // the 50th resumption, on node b: the 25 streams node a opened (s1, s3, ..., s49) are live writers it cannot fence
    expect(last.message).toContain('prior_writer_unfenceable (25 live writers on another node; the latest 20 cited)');
    // the k-th upgrade (line 2k + 2) opened s<k>: s11, s13, ..., s49 opened on lines 24, 28, ..., 100; the 50th is line 102
    const openings = Array.from({ length: 20 }, (_, i) => 2 * (11 + 2 * i) + 2);
    expect(evidenceLines(last)).toEqual([...openings, 102]);
  });

  it('cites the live writer on another node where the answering node shares the store of the node that created the session', async () => {
    const onA = (line: Record<string, unknown>) => ({ ...line, node: 'a' });
    const report = await analyzeLines([
      onA(created), // 1
      onA(opened), // 2: g1, never closed
      onA(sent(1000, 1)), // 3
      onA(sent(2000, 2)), // 4
      // node b continues a's events where they left off (a shared store), while g1 is still up on a
      upgrade(3000, { last_event_id: 1, decision: 'resume', status: 200, replayed: 1, first_replayed: 2, node: 'b' }), // 5
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('a correct server would reject 409 resumption_unavailable: prior_writer_unfenceable');
    expect(evidenceLines(f!)).toEqual([2, 5]);
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

  // A node that restarts without a log line loses its sessions: its clients get 404 for sessions the log shows live.
  const onNode = (line: LogLine): LogLine => ({ ...(line as Record<string, unknown>), node: 'mcp-b' });
  const lostOnRestart = (ms = 9000, fields: Record<string, unknown> = {}) =>
    upgrade(ms, { last_event_id: 2, decision: 'reject', status: 404, reason: 'session_not_found', new_stream: undefined, node: 'mcp-b', ...fields });

  it('says where a session a 404 lost was live, and cites its creation', async () => {
    const report = await analyzeLines([...history.map(onNode), lostOnRestart()]); // 1-6, 7
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe(
      `server rejected S1 from 2 (404 session_not_found); a correct server would resume it, replaying 1 event (3), as the log shows the session live on mcp-b from ${at(0)} and never ended (lost in a restart or an eviction the log does not show?) (no rule explains it)`,
    );
    // the creation, the emission of event 2 the engine resumes from, the 404
    expect(evidenceLines(f!)).toEqual([1, 4, 7]);
  });

  it('says nothing of a lost session for a 404 after the logged end, nor for a refusal other than 404', async () => {
    const ended = await analyzeLines([...history.map(onNode), onNode({ ts: at(8000), kind: 'session.evicted', session: 'S1' }), lostOnRestart(9500)]);
    expect(findingsOf(ended, RULE)).toEqual([]);
    const refused = await analyzeLines([...history.map(onNode), lostOnRestart(9000, { status: 409, reason: 'resumption_unavailable' })]);
    const [f] = findingsOf(refused, RULE);
    expect(f!.message).not.toContain('lost');
    expect(evidenceLines(f!)).toEqual([4, 7]);
  });

  // Events 1 and 2 on a POST stream that closed, then a GET stream whose first event reuses an id (a fork), and a
  // 409 while the server fences that GET stream: placed on the GET stream the refusal agrees with fencing it,
  // placed on the POST stream a correct server would have resumed at once.
  const reusedOnGet = (getIds: number[], lastEventId: number): LogLine[] => [
    created, // 1
    { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' }, // 2
    { ts: at(1000), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 1 }, // 3
    { ts: at(2000), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 2 }, // 4
    { ts: at(2500), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'server' }, // 5
    opened, // 6 (g1)
    ...getIds.map((id, k) => sent(3000 + k * 100, id)),
    upgrade(5000, { last_event_id: lastEventId, decision: 'reject', status: 409, reason: 'writer_busy', new_stream: undefined }),
    fenced(5500),
  ];

  it('does not judge a reconnect from an id the session emitted twice, and says why', async () => {
    const report = await analyzeLines(reusedOnGet([2], 2));
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([
      {
        rule: RULE,
        session: 'S1',
        reason: `the session had emitted Last-Event-ID 2 more than once (event-id-regression) before the reconnect at ${at(5000)}: which of its emissions a server resumes from cannot be told`,
      },
    ]);
  });

  it('judges a reconnect from an id emitted twice where the answer does not depend on the position', async () => {
    const lines = reusedOnGet([2], 2).slice(0, -2); // 1-7: 2 emitted on p1 and on g1
    const report = await analyzeLines([
      ...lines,
      { ts: at(4000), kind: 'session.evicted', session: 'S1' }, // 8
      upgrade(5000, { last_event_id: 2, decision: 'resume', status: 200, replayed: 0 }), // 9
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toMatch(/^server resumed S1 from 2 \(200\); a correct server would reject 404 session_not_found \(explained by: .*resume-after-end/);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('judges a reconnect from an id emitted once, even in a session that reused another id', async () => {
    const once = await analyzeLines(reusedOnGet([3], 3));
    expect(findingsOf(once, RULE)).toEqual([]); // a 409 while fencing g1, which holds 3
    expect(once.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
    const other = await analyzeLines(reusedOnGet([1, 3], 2)); // 1 reused; 2 lies on the closed POST stream only
    expect(findingsOf(other, RULE).map((f) => f.message)).toEqual([
      'server rejected S1 from 2 (409 writer_busy); a correct server would resume it (nothing to replay) (no rule explains it)',
    ]);
    expect(other.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
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

  // 2026-07-28 has no initialize: the message says so, and explain's advice is that revision's, not the headers' branches.
  const initialize = (version: string) => [
    { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S9', protocol_version: version },
    { ts: at(1), kind: 'session.created', session: 'S9', protocol_version: version },
  ];

  it('at 2026-07-28 says that an initialize does not exist there, and advises that revision\'s answers', async () => {
    const [f] = findingsOf(await analyzeLines(initialize('2026-07-28')), RULE);
    expect(f!.message).toContain(
      'a correct server would reject 400 initialize_unsupported: at protocol 2026-07-28 initialize does not exist (its changelog: no handshake, no sessions), so no request of that revision opens a session',
    );
    expect(ruleOf(RULE).explanation.fitted?.(f!.message)?.shouldHave).toMatch(/^At 2026-07-28 and later branch on neither header: refuse an initialize \(400\)/);
  });

  it('near miss: a legacy divergence names no revision and keeps the general advice', async () => {
    expect(findingsOf(await analyzeLines(initialize('2025-11-25')), RULE)).toEqual([]);
    const legacy = 'server resumed Last-Event-ID 2 without a session (200); a correct server would reject 400 event_id_without_session';
    expect(ruleOf(RULE).explanation.fitted?.(legacy)).toBeUndefined();
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

  // The resumption names event 4, which node a logs sending `after` ms later: node b's clock runs behind.
  const namedBeforeSent = (after: number): LogLine[] => [
    ...[created, opened, sent(1000, 1), sent(2000, 2), sent(3000, 3)].map((r) => ({ ...r, node: 'a' })),
    { ...upgrade(5000, { last_event_id: 4, decision: 'resume', status: 200, replayed: 0 }), node: 'b' },
    { ...sent(5000 + after, 4), node: 'a' },
  ];

  it('is not knowable where the session sends the named event soon after the resumption: a clock behind logged it first', async () => {
    const report = await analyzeLines(namedBeforeSent(300));
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => [n.session, n.reason])).toEqual([['S1', expect.stringContaining('named event 4, which the session\'s log shows sent 300 ms later')]]);
    // the node behind named from the side the closing "Clock skew" note takes ("the clock of b … behind")
    expect(nk[0]!.reason).toContain('on b named event 4');
    expect(nk[0]!.reason).toContain('later, on a: taken for the clock of b running behind a\'s (clock skew)');
  });

  // A resume logged before anything of its session: the creation another node logs `after` ms later.
  const createdAfter = (after: number, createdOn: string): LogLine[] => [
    { ...upgrade(5000, { last_event_id: 1, decision: 'resume', status: 200, replayed: 0 }), node: 'b' },
    { ...created, ts: at(5000 + after), node: createdOn },
    { ...sent(5000 + after + 100, 1), node: createdOn },
  ];

  it('says a resume logged just before its session\'s creation on another node is clock skew, not a log that starts late', async () => {
    const nk = (await analyzeLines(createdAfter(700, 'a'))).not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.reason)).toEqual([
      'the resume at 2026-11-09T10:00:05.000Z comes before anything of S1 in the log: its creation is logged 700 ms after it, on a; taken for the clock of b running behind a\'s (clock skew), so the engine, replaying by logged time, cannot tell what a correct server knew of the session',
    ]);
  });

  it('near miss: a creation on the same node, or past the allowance, leaves "the log holds nothing of" it', async () => {
    for (const lines of [createdAfter(700, 'b'), createdAfter(10_001, 'a')]) {
      const nk = (await analyzeLines(lines)).not_knowable.filter((n) => n.rule === RULE);
      expect(nk.map((n) => n.reason)).toEqual([expect.stringContaining('the log holds nothing of S1 before the resume at 2026-11-09T10:00:05.000Z')]);
    }
  });

  it('near miss: flags a resumption from an event the session sends only beyond the clock-skew allowance', async () => {
    const report = await analyzeLines(namedBeforeSent(10_001));
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('a correct server would reject 409 resumption_unavailable: unknown_event_id');
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
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
    // ...as an unknown position of a session the log shows live, not as an unknown session (404)
    expect(findingsOf(above, RULE).map((f) => f.message)).toEqual([
      expect.stringMatching(/^server resumed S1 from 99 \(200\); a correct server would reject 409 resumption_unavailable: unknown_event_id \(explained by: phantom-event-id/),
    ]);
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
    // near miss: an ended session's 404 stands
    expect(findingsOf(ended, RULE).map((f) => f.message)).toEqual([expect.stringMatching(/would reject 404 session_not_found .*\(explained by: resume-after-end\)/)]);
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

  // A proxy's 502/503/504 with no server record of the request: the upstream failed, no server decided.
  it('does not judge a resume that only the proxy logged, answered 502 or 504: not knowable, an upstream failure', async () => {
    const proxyResume = (ms: number, status: number) => ({
      ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '3' }, resp_headers: {},
    });
    const report = await analyzeLines([...history, proxyResume(5000, 502), proxyResume(6000, 504)]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([expect.stringMatching(/with 502 and no server logged the request: an upstream failure/)]);
    // near miss: the same resume answered 404 by the proxy's upstream is a server's decision, and it diverges
    const rejected = await analyzeLines([...history, proxyResume(5000, 404)]);
    expect(findingsOf(rejected, RULE).map((f) => f.message)).toEqual([expect.stringContaining('server rejected S1 from 3 (404)')]);
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

  // The request alone decides a GET without a session too, and a proxy logs its method: at 2026-07-28, which
  // has no GET stream, a proxy's line of one answered with a stream diverges as the server's record of it does.
  const sessionlessGet = (version: string, status: number) => ({
    ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status,
    req_headers: { 'mcp-protocol-version': version, accept: 'text/event-stream' },
    resp_headers: status === 200 ? { 'content-type': 'text/event-stream' } : {}, sse_event_ids: status === 200 ? ['1', '2'] : undefined,
  });
  it('judges a session-less GET a proxy saw answered with a stream as the server record of it is judged', async () => {
    const server = { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, new_stream: 'g1', decision: 'attach', status: 200, replayed: 0, reemitted: 0, protocol_version: '2026-07-28' };
    const expected = 'server attached a new stream to a request without a session (200); a correct server would reject 405 method_not_allowed (no rule explains it)';
    const fromServer = findingsOf(await analyzeLines([server]), RULE);
    const fromProxy = findingsOf(await analyzeLines([sessionlessGet('2026-07-28', 200)]), RULE);
    expect(fromServer.map((f) => [f.session, f.message])).toEqual([[null, expected]]);
    expect(fromProxy.map((f) => [f.session, f.message, evidenceLines(f)])).toEqual([[null, expected, [1]]]);
  });

  it('near miss: a session-less GET a proxy saw answered 405 at 2026-07-28, or 400 at 2025-11-25', async () => {
    const report = await analyzeLines([sessionlessGet('2026-07-28', 405), { ...sessionlessGet('2025-11-25', 400), ts: at(1) }]);
    expect(report.summary.rejected_lines).toBe(0);
    expect(findingsOf(report, RULE)).toEqual([]);
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

  it('does not name orphaned-request, which cites a reconnect as what replayed or stranded a request, not as a decision it judges', () => {
    const db = openDb(':memory:');
    const table = FindingTable.create(db);
    table.add([raw('engine-divergence', [4, 9]), raw('engine-divergence', [4, 12])]);
    table.add([raw('orphaned-request', [3, 9]), raw('orphaned-request', [5, 12])]);
    table.add([raw('cross-principal-replay', [1, 9])]);
    explainEngineDivergences(table, RULE_IDS);
    const messages = table.seal().toArray().filter((f) => f.rule === RULE).map((f) => f.message);
    // near miss: the other rule citing the same upgrade is still named
    expect(messages.sort()).toEqual(['engine-divergence (explained by: cross-principal-replay)', 'engine-divergence (no rule explains it)']);
    db.close();
  });

  // Node a, which wrote g1, logged nothing after `lastOfA` (killed in a deploy?) before node b took the session over.
  const takenOverOn = (lastOfA: number): LogLine[] => [
    { ...created, node: 'a' },
    { ...opened, node: 'a' },
    { ...sent(100, 1007), node: 'a' },
    { ts: at(lastOfA), kind: 'event.sent', session: 'S9', stream: 'x', event_id: 1, node: 'a' },
    { ...upgrade(1000, { last_event_id: 1007, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 }), node: 'b' },
  ];

  it('the engine-divergence of the same takeover carries the same hedge, and only where that node fell silent', async () => {
    const hedge = 'a, which wrote g1, logged nothing after 2026-11-09T10:00:00.500Z: if its process died, g1 died with it, which no log line shows';
    const [silent] = findingsOf(await analyzeLines(takenOverOn(500)), 'engine-divergence');
    expect(silent?.message).toContain(`prior_writer_unfenceable (${hedge})`);
    const [alive] = findingsOf(await analyzeLines(takenOverOn(5000)), 'engine-divergence');
    expect(alive?.message).toContain('prior_writer_unfenceable');
    expect(alive?.message).not.toContain('logged nothing after');
  });

  // Node b's clock behind a's: the takeover on b replays event 1008, which a logs sending 600 ms after it; a fences
  // g1 `fencedMs` after the start.
  const inverted = (fencedMs: number): LogLine[] => [
    { ...created, node: 'a' },
    { ...opened, conn: 'c1', node: 'a' },
    { ...sent(100, 1007), node: 'a' },
    { ...upgrade(1000, { last_event_id: 1007, decision: 'resume', status: 200, replayed: 1, first_replayed: 1008 }), node: 'b' },
    { ...sent(1600, 1008), node: 'a' },
    { ts: at(fencedMs), kind: 'stream.fenced', session: 'S1', stream: 'g1', node: 'a' },
  ];

  it('widens its cross-node margin by the skew the takeover\'s own lines prove, as dual-writer does', async () => {
    const report = await analyzeLines(inverted(2400));
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([
      `the writers on other nodes that the resumption at ${at(1000)} took over from were retired within 1 s after it beyond the 600 ms its own lines show another node's clock ahead (they are in an impossible order): the nodes' clocks cannot order that, so whether they were fenced first cannot be told`,
    ]);
  });

  it('near miss: a writer retired later than that margin diverges', async () => {
    const report = await analyzeLines(inverted(2700));
    expect(findingsOf(report, RULE).map((f) => f.message)).toEqual([expect.stringContaining('prior_writer_unfenceable')]);
  });

  // Session B resumes from id 5, which only A had sent by then; B sends 5 itself 1 s later. What "another session's
  // id" means is foreign-event-id's (queries/facts/foreign-last-event-ids.sql): bounded by the reconnect, except a
  // send within the clock-skew allowance after it on another node's clock.
  const foreignThenOwn = (laterNode?: string): LogLine[] => [
    { ts: at(0), kind: 'session.created', session: 'A', principal: 'alice', node: 'n1' },
    { ts: at(10), kind: 'stream.opened', session: 'A', stream: 'a1', via: 'get', node: 'n1' },
    { ts: at(1000), kind: 'event.sent', session: 'A', stream: 'a1', event_id: 5, node: 'n1' },
    { ts: at(1100), kind: 'session.created', session: 'B', principal: 'alice', node: 'n1' },
    { ts: at(1110), kind: 'stream.opened', session: 'B', stream: 'b1', via: 'get', node: 'n1' },
    { ts: at(1500), kind: 'stream.closed', session: 'B', stream: 'b1', reason: 'client', node: 'n1' },
    { ts: at(2000), kind: 'upgrade', session: 'B', last_event_id: 5, stream: 'b1', new_stream: 'b2', decision: 'resume', status: 200, replayed: 0, node: 'n1' },
    { ts: at(3000), kind: 'event.sent', session: 'B', stream: 'b2', event_id: 5, node: laterNode ?? 'n1' },
  ];

  it('takes a Last-Event-ID only another session had sent by the reconnect for foreign, though the session sends it later', async () => {
    const report = await analyzeLines(foreignThenOwn());
    expect(findingsOf(report, 'foreign-event-id').map((f) => f.session)).toEqual(['B']);
    expect(findingsOf(report, RULE).map((f) => f.message)).toEqual([
      'server resumed B from 5 (200); a correct server would reject 409 resumption_unavailable: foreign_event_id (explained by: foreign-event-id)',
    ]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it("takes the session's own send just after, on another node's clock, for its own, as foreign-event-id does", async () => {
    const report = await analyzeLines(foreignThenOwn('n2'));
    expect(findingsOf(report, 'foreign-event-id')).toEqual([]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([
      expect.stringContaining('clock skew'),
    ]);
  });
});
