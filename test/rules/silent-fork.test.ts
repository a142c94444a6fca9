import { describe, expect, it } from 'vitest';
import { analyzeFilesOf, analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';

const RULE = 'silent-fork';

const upgrade = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind: 'upgrade', session: 'S1', status: 200, ...fields });

describe('silent-fork', () => {
  it('flags an evicted session served a resume with a re-minted id and no reset signal', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', incarnation: 'i-1' }, // 1
      { ts: at(500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 7 }, // 2
      { ts: at(31_000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' }, // 3
      { ts: at(46_000), kind: 'session.created', session: 'S1', incarnation: 'i-2' }, // 4: the re-mint answering the resume
      upgrade(46_000, { decision: 'resume', last_event_id: 7, new_stream: 'g2', replayed: 3, first_replayed: 1 }), // 5
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('S1 was evicted (idle_timeout)');
    expect(f!.message).toContain('a resume from event 7 got 200 and a re-minted S1 instead of 404/410, with no new session id and no reset signal');
    expect(evidenceLines(f!)).toEqual([3, 5]);
  });

  it('flags a session created only on another node, answered by a node without it (two export files)', async () => {
    const report = await analyzeFilesOf({
      'a.ndjson': [
        { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' }, // a:1
        { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 4, node: 'a' }, // a:2
      ],
      'b.ndjson': [
        upgrade(2000, { decision: 'fresh', last_event_id: 4, new_session: 'S1', node: 'b' }), // b:1
      ],
    });
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toBe(
      'b, which never had S1 (created on a; no shared session store), answered a resume from event 4 with a fresh 200 re-minting S1 instead of 404/410, with no new session id and no reset signal',
    );
    expect(f!.evidence).toEqual([
      { file: 'a.ndjson', line: 1 },
      { file: 'b.ndjson', line: 1 },
    ]);
  });

  // Two nodes behind a load balancer with a shared store: node b resumes node a's stream and its
  // replay starts at the event a sent right after Last-Event-ID. Only a shared store gives b that.
  const crossNode = (replay: { replayed: number; first_replayed: number }) => ({
    'a.ndjson': [
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'a' },
      { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 4, node: 'a' },
      { ts: at(200), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 5, node: 'a' },
      { ts: at(300), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error', node: 'a' },
    ],
    'b.ndjson': [
      upgrade(2000, { decision: 'resume', last_event_id: 4, stream: 'g1', new_stream: 'g2', ...replay, node: 'b' }),
      { ts: at(2001), kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get', node: 'b' },
      upgrade(9000, { decision: 'attach', last_event_id: null, new_stream: 'g3', replayed: 0, node: 'b' }),
    ],
  });

  it('does not flag another node that continued the session where the creating node left off (a shared store)', async () => {
    const report = await analyzeFilesOf(crossNode({ replayed: 1, first_replayed: 5 }));
    expect(findingsOf(report, RULE)).toEqual([]);
    // The engine, told what the log shows, agrees with both answers.
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
  });

  // rules.md v2: a fork needs a mint. A resume or attach another node answers without minting shows a shared
  // store, whatever it replayed; a replay that restarted the sequence is event-id-regression's, not a fork.
  it('does not flag a cross-node resume and attach that mint nothing, even when the replay restarted the sequence', async () => {
    const report = await analyzeFilesOf(crossNode({ replayed: 1, first_replayed: 1 }));
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'event-id-regression').map((f) => f.session)).toEqual(['S1']);
  });

  it('does not flag a cross-node resume that replayed nothing, nor the later attach on that node (v2: a shared store)', async () => {
    const report = await analyzeFilesOf(crossNode({ replayed: 0, first_replayed: null as unknown as number }));
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('flags a cross-node request that re-mints the session (a creation answering it) without a reset', async () => {
    const files: Record<string, LogLine[]> = crossNode({ replayed: 0, first_replayed: null as unknown as number });
    files['b.ndjson'] = [
      { ts: at(2000), kind: 'session.created', session: 'S1', node: 'b' }, // b:1, the re-mint answering it
      upgrade(2000, { decision: 'resume', last_event_id: 4, stream: 'g1', new_stream: 'g2', replayed: 0, node: 'b' }), // b:2
    ];
    const [f, ...rest] = findingsOf(await analyzeFilesOf(files), RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('b, which never had S1 (created on a; no shared session store), answered a resume from event 4 with 200 re-minting S1 instead of 404/410');
  });

  it('does not flag another node when the config says the nodes share a session store', async () => {
    const report = await analyzeFilesOf(crossNode({ replayed: 0, first_replayed: 1 }), { sharedSessionStore: true });
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
  });

  it('leaves an accepted resume of an ended session that hands out no session to resume-after-end', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 7 },
      { ts: at(1000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' },
      upgrade(2000, { decision: 'resume', last_event_id: 7, stream: 'g1', new_stream: 'g2', replayed: 0 }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'resume-after-end')).toHaveLength(1);
  });

  it('flags an id never created in the log that was minted again as fresh', async () => {
    const report = await analyzeLines([upgrade(1000, { session: 'S7', decision: 'fresh', last_event_id: 3, new_session: 'S7', reset_signalled: true })]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('S7 was never created in the log');
    expect(f!.message).toContain('with no new session id');
    expect(evidenceLines(f!)).toEqual([1]);
  });

  it('does not flag a told reset, the node that created the session, or a node the log cannot place', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(10), kind: 'session.created', session: 'S3' }, // node unknown
      { ts: at(1000), kind: 'session.evicted', session: 'S1' },
      upgrade(2000, { decision: 'fresh', last_event_id: 7, new_session: 'S2', reset_signalled: true, node: 'a' }),
      { ts: at(2000), kind: 'session.created', session: 'S2', node: 'a' },
      upgrade(3000, { session: 'S2', decision: 'attach', node: 'a' }),
      upgrade(3100, { session: 'S3', decision: 'attach', node: 'b' }),
      // a first creation and its attach in one millisecond: a live session, not a re-mint
      { ts: at(4000), kind: 'session.created', session: 'S4', node: 'a' },
      upgrade(4000, { session: 'S4', decision: 'attach', node: 'a' }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('is not knowable for an id the log never mentions before, or a proxy that could not see the reset frame', async () => {
    const report = await analyzeLines([
      upgrade(1000, { session: 'S9', decision: 'attach', new_stream: 'g1' }),
      {
        ts: at(2000), kind: 'http', method: 'GET', path: '/mcp', status: 200,
        req_headers: { 'mcp-session-id': 'GONE', 'last-event-id': '5' },
        resp_headers: { 'mcp-session-id': 'NEW1', 'content-type': 'text/event-stream' },
      },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.session)).toEqual(['GONE', 'S9']);
    expect(nk[0]!.reason).toContain('whether a reset frame was sent could not be seen');
    expect(nk[1]!.reason).toContain('the log holds no creation of S9');
  });
  // rules.md v2: an id the server answered 404 for an earlier request is unknown (until created again).
  const px = (ms: number, method: string, status: number, req: Record<string, string>, resp: Record<string, string> = {}) => ({
    ts: at(ms), kind: 'http', method, path: '/mcp', status, req_headers: req, resp_headers: { 'content-type': method === 'GET' ? 'text/event-stream' : 'application/json', ...resp },
    duration_ms: 20, reset_signalled: false, principal: 'p1',
    ...(method === 'POST' && { rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 4 }),
  });
  it('flags a proxy-seen mint without a reset after the server answered 404 for the id', async () => {
    const report = await analyzeLines([
      px(0, 'POST', 200, {}, { 'mcp-session-id': 'X' }),
      px(1000, 'POST', 404, { 'mcp-session-id': 'X' }),
      px(2000, 'GET', 200, { 'mcp-session-id': 'X', 'last-event-id': '1' }, { 'mcp-session-id': 'Y' }),
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('X');
    expect(f!.message).toContain('X was answered 404 by the server');
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  it('does not flag a request after a 404 that mints nothing, nor a mint with a told reset', async () => {
    const report = await analyzeLines([
      px(0, 'POST', 200, {}, { 'mcp-session-id': 'X' }),
      px(1000, 'POST', 404, { 'mcp-session-id': 'X' }),
      px(2000, 'GET', 200, { 'mcp-session-id': 'X', 'last-event-id': '1' }),
      { ...px(3000, 'GET', 200, { 'mcp-session-id': 'X' }, { 'mcp-session-id': 'Z' }), reset_signalled: true },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });
  // resume-after-end still sees the end before such a 404; silent-fork keeps reading the id as unknown since the 404.
  it('after an end and a 404 since: a mint without a reset is flagged citing the 404, a resume minting nothing is not', async () => {
    const lines = [
      { ts: at(0), kind: 'session.created', session: 'S1' }, // 1
      { ts: at(1000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' }, // 2
      { ts: at(1500), kind: 'call', session: 'S1', rpc_id: 7, method: 'tools/call', tool: 'x', status: 404 }, // 3
      upgrade(2000, { decision: 'resume', last_event_id: 7, stream: 'g1', new_stream: 'g2', replayed: 0 }), // 4
    ];
    const unminted = await analyzeLines(lines);
    expect(findingsOf(unminted, RULE)).toEqual([]);
    expect(findingsOf(unminted, 'resume-after-end').map((f) => evidenceLines(f))).toEqual([[2, 4]]);
    const minted = await analyzeLines([...lines.slice(0, 3), upgrade(2000, { decision: 'fresh', last_event_id: 7, new_stream: 'g2', new_session: 'S1' })]);
    const [f, ...rest] = findingsOf(minted, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('S1 was answered 404 by the server at');
    expect(evidenceLines(f!)).toEqual([3, 4]);
  });

  it('does not flag a 2026-07-28 request whose stale session id was ignored: served fresh, nothing minted', async () => {
    const report = await analyzeLines([
      upgrade(1000, { session: 'OLD-S', last_event_id: 41, decision: 'fresh', reason: 'stateless_request', protocol_version: '2026-07-28' }),
      { ts: at(1001), kind: 'call', session: 'OLD-S', rpc_id: 3, method: 'tools/list', status: 200, protocol_version: '2026-07-28' },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('still flags the same unminted fresh answer at 2025-11-25, and a 2026-07-28 one that re-minted the stale id', async () => {
    const report = await analyzeLines([
      upgrade(1000, { session: 'OLD-S', last_event_id: 41, decision: 'fresh', protocol_version: '2025-11-25' }),
      upgrade(2000, { session: 'OLD-T', last_event_id: 41, decision: 'fresh', new_session: 'OLD-T', protocol_version: '2026-07-28' }),
    ]);
    expect(findingsOf(report, RULE).map((f) => f.session)).toEqual(['OLD-S', 'OLD-T']);
  });
});

describe('silent-fork: a log that starts after the session was created', () => {
  const freshAnswer = upgrade(5000, { decision: 'fresh', last_event_id: 5, new_session: 'S2', reset_signalled: false, replayed: 0, reemitted: 0 });

  it('is not knowable where the log shows the session at work but not its creation (a rotated export)', async () => {
    const report = await analyzeLines([{ ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 5 }, freshAnswer]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([
      {
        rule: RULE,
        session: 'S1',
        reason: expect.stringContaining('the log starts after S1 was created: whether it was still known when'),
      },
    ]);
  });

  it('near miss: with nothing of the session before it, the same fresh answer is flagged', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines([freshAnswer]), RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('S1 was never created in the log, yet a request with Last-Event-ID 5 served fresh got 200 and new session S2 instead of 404/410');
    expect(evidenceLines(f!)).toEqual([1]);
  });
});
