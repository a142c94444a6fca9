import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'event-id-regression';

const created = (session: string, ms = 0) => ({ ts: at(ms), kind: 'session.created', session });
const sent = (ms: number, id: number | string, session = 'S1', stream = 'g1') => ({ ts: at(ms), kind: 'event.sent', session, stream, event_id: id });
const resume = (ms: number, fields: Record<string, unknown>) => ({
  ts: at(ms),
  kind: 'upgrade',
  session: 'S1',
  stream: 'g1',
  new_stream: 'g2',
  decision: 'resume',
  status: 200,
  ...fields,
});

describe('event-id-regression', () => {
  it('flags event ids sent again under one session id after a re-mint: one finding for the restarted sequence', async () => {
    const report = await analyzeLines([
      created('S1'), // 1
      sent(1000, 1), // 2
      sent(1100, 2), // 3
      { ts: at(1500), kind: 'session.evicted', session: 'S1' }, // 4
      created('S1', 1600), // 5
      sent(1700, 1, 'S1', 'g9'), // 6
      sent(1800, 2, 'S1', 'g9'), // 7
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('event id 1 was sent twice under session S1: on stream g1');
    expect(f!.message).toContain('again on stream g9 (with 2)');
    expect(evidenceLines(f!)).toEqual([2, 6]);
  });

  it('flags every restarted sequence of an id minted again and again, a third one too', async () => {
    const report = await analyzeLines([
      created('S1'), // 1
      sent(1000, 1), // 2
      sent(1100, 2), // 3
      created('S1', 1600), // 4
      sent(1700, 1, 'S1', 'g2'), // 5
      sent(1800, 2, 'S1', 'g2'), // 6
      created('S1', 2600), // 7
      sent(2700, 1, 'S1', 'g3'), // 8
      sent(2800, 2, 'S1', 'g3'), // 9
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => evidenceLines(f))).toEqual([[2, 5], [2, 8]]);
    expect(found[1]!.message).toContain('event id 1 was sent a 3rd time under session S1: on stream g1');
    expect(found[1]!.message).toContain('again on stream g3 (with 2)');
  });

  // 2025-03-26 §Sending Messages 6: "These responses MAY be batched": one SSE event carrying several JSON-RPC
  // responses, logged one event.sent per response (README, logging a batch).
  const batched = (ms: number, rpcId: number, stream = 'p1') => ({ ...sent(ms, 7, 'S1', stream), rpc_kind: 'response', rpc_id: rpcId });
  const batchLog = (second: ReturnType<typeof batched>) => [
    { ...created('S1'), protocol_version: '2025-03-26' },
    { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
    batched(500, 1),
    second,
    { ts: at(501), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'server' },
  ];

  it('does not take a batched response (one event id, one stream, one time, one line per rpc id) for a restarted sequence', async () => {
    expect(findingsOf(await analyzeLines(batchLog(batched(500, 2))), RULE)).toEqual([]);
  });

  it('near miss: the same id on the same stream a moment later, or at the same time on another stream, is sent twice', async () => {
    const later = findingsOf(await analyzeLines(batchLog(batched(501, 2))), RULE);
    expect(later.map((f) => evidenceLines(f))).toEqual([[3, 4]]);
    const elsewhere = findingsOf(await analyzeLines(batchLog(batched(500, 2, 'p2'))), RULE);
    expect(elsewhere.map((f) => evidenceLines(f))).toEqual([[3, 4]]);
  });

  it('near miss: snowflake ids beyond 2^53, written as bare integers, are three ids, not one sent three times', async () => {
    const sent = (ms: number, id: string) => `{"ts":"${at(ms)}","kind":"event.sent","session":"S1","stream":"g1","event_id":${id}}`;
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      sent(100, '1790000000000000001'),
      sent(200, '1790000000000000002'),
      sent(300, '1790000000000000003'),
    ]);
    expect(findingsOf(report, 'event-id-regression')).toEqual([]);
  });

  it('counts an id a lane sends a third time once for that lane', async () => {
    const report = await analyzeLines([
      created('S1'), sent(1000, 5), sent(1100, 1), sent(1700, 5, 'S1', 'g2'), sent(1800, 1, 'S1', 'g2'), sent(1900, 1, 'S1', 'g2'),
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('event id 5 was sent twice under session S1: on stream g1');
    expect(f!.message).toContain('again on stream g2 (with 1):');
  });

  it('flags a resumption that replayed an event at or before its Last-Event-ID', async () => {
    const report = await analyzeLines([
      created('S1'), // 1
      sent(1000, 'a'), // 2
      sent(1100, 'b'), // 3
      sent(1200, 'c'), // 4
      resume(2000, { last_event_id: 'c', replayed: 2, first_replayed: 'b' }), // 5
      resume(3000, { last_event_id: 'c', stream: 'g2', new_stream: 'g3', replayed: 0 }), // 6
      { ts: at(3001), kind: 'event.replayed', session: 'S1', stream: 'g3', event_id: 'c' }, // 7: c itself again
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => f.message)).toEqual([
      expect.stringContaining('resumed S1 from event c but replayed event b, at or before it'),
      expect.stringContaining('resumed S1 from event c but replayed event c, at or before it'),
    ]);
    // opaque ids: b before c is shown by their emission lines
    expect(evidenceLines(found[0]!)).toEqual([3, 4, 5]);
    expect(evidenceLines(found[1]!)).toEqual([6, 7]);
  });

  it('does not flag ids that repeat across sessions, nor a replay that starts right after Last-Event-ID', async () => {
    const report = await analyzeLines([
      created('S1'),
      created('S2'),
      sent(1000, 1),
      sent(1100, 1, 'S2', 'x1'),
      sent(1200, 2),
      resume(2000, { last_event_id: 1, replayed: 1, first_replayed: 2, replayed_ids: [2] }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('is not knowable for a proxy-only session: the server emissions are not visible', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '3' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.session)).toEqual(['P1']);
    expect(nk[0]!.reason).toContain('proxy log only');
  });

  it('flags a proxy-only replay whose first SSE id goes back before Last-Event-ID', async () => {
    const get = (ms: number, headers: Record<string, string>, sse: number[]) => ({
      ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: headers,
      resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: sse,
    });
    const report = await analyzeLines([get(0, { 'mcp-session-id': 'P1' }, [1, 2, 3]), get(5000, { 'mcp-session-id': 'P1', 'last-event-id': '3' }, [1, 2])]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('replayed event 1 (the first id the proxy saw), at or before it');
    expect(evidenceLines(f!)).toEqual([1, 2]);
  });

  it('flags a proxy-only replay that restarts below a Last-Event-ID the proxy saw end a stream, not knowable otherwise', async () => {
    const get = (ms: number, headers: Record<string, string>, sse: number[]) => ({
      ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', ...headers },
      resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: sse,
    });
    // 1, 2, 3, then 4, 5 on the resumption from 3; the resumption from 5 (another node, its own counter) starts at 1 again
    const story = (after5: number[]) => [get(0, {}, [1, 2, 3]), get(5000, { 'last-event-id': '3' }, [4, 5]), get(16_000, { 'last-event-id': '5' }, after5)];
    const report = await analyzeLines(story([1, 2]));
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe('resumed P1 from event 5 but replayed event 1 (the first id the proxy saw), at or before it: the event sequence restarted, the mark of a fork');
    expect(evidenceLines(f!)).toEqual([2, 3]);
    expect(report.not_knowable.filter((n) => n.rule === RULE && n.reason.includes('sent twice'))).toEqual([]);
    // near miss: a replay that goes on past 5 is no regression the proxy can see
    const onward = await analyzeLines(story([6]));
    expect(findingsOf(onward, RULE)).toEqual([]);
    expect(onward.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([expect.stringContaining('proxy log only')]);
  });

  describe('seen by a proxy alone', () => {
    const post = (ms: number, ids: number[]) => ({
      ts: at(ms), kind: 'http', method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: `c${ms}`,
      req_headers: { 'mcp-session-id': 'P1' }, resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ids,
    });
    const get = (ms: number, ids: number[]) => ({
      ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1' },
      resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ids,
    });

    it('flags ids that go by again in the response to a new request', async () => {
      const report = await analyzeLines([post(1000, [1, 2]), post(3000, [1, 2])]);
      const [f, ...rest] = findingsOf(report, RULE);
      expect(rest).toEqual([]);
      expect(f!.message).toContain('event ids 1 and 2 went by again in the response to a new request in P1');
      expect(evidenceLines(f!)).toEqual([1, 2]);
    });

    it('does not flag new ids on a new request, nor old ids on an attach (replay-on-attach judges that)', async () => {
      expect(findingsOf(await analyzeLines([post(1000, [1, 2]), post(3000, [3, 4])]), RULE)).toEqual([]);
      expect(findingsOf(await analyzeLines([post(1000, [1, 2]), get(3000, [1, 2])]), RULE)).toEqual([]);
    });
  });
});
