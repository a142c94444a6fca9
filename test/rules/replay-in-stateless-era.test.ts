import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'replay-in-stateless-era';
const V = '2026-07-28';

describe(RULE, () => {
  it('fires on a stateless request with Last-Event-ID that was resumed, or that replayed events', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: 5, new_stream: 'p2', decision: 'resume', status: 200, protocol_version: V },
      { ts: at(1), kind: 'upgrade', session: null, last_event_id: 9, new_stream: 'p3', decision: 'fresh', status: 200, replayed: 3, protocol_version: V },
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => [f.severity, f.session, evidenceLines(f)])).toEqual([
      ['error', null, [1]],
      ['error', null, [2]],
    ]);
    expect(found[1]!.message).toContain('replayed 3 past events');
  });

  it('near miss: the header ignored, a rejected resume, or the same resume at 2025-11-25', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: 5, new_stream: 'p2', decision: 'fresh', status: 200, replayed: 0, protocol_version: V },
      { ts: at(1), kind: 'upgrade', session: null, last_event_id: 5, decision: 'resume', status: 400, protocol_version: V },
      { ts: at(2), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
      { ts: at(3), kind: 'event.sent', session: 'S1', stream: 'g', event_id: 5 },
      { ts: at(4), kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 },
      // a version that is not a date names no revision, though it sorts after every date
      { ts: at(5), kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g2', new_stream: 'g3', decision: 'resume', status: 200, replayed: 0, protocol_version: 'latest' },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  // A proxy line of a GET: at 2026-07-28 a GET has no stream to be answered with (405), so one accepted with
  // Last-Event-ID was resumed, which the event ids the proxy saw after the cursor bear out (review item 2, case c25).
  const proxyGet = (ts: string, version: string, headers: Record<string, string>, status: number, ids?: string[]) => ({
    ts, kind: 'http', method: 'GET', path: '/mcp', status,
    req_headers: { 'mcp-protocol-version': version, accept: 'text/event-stream', ...headers },
    resp_headers: status === 200 ? { 'content-type': 'text/event-stream' } : {},
    ...(ids !== undefined && { sse_event_ids: ids }), principal: 'alice',
  });

  it('fires on a GET at 2026-07-28 with Last-Event-ID that a proxy saw accepted, naming what it saw', async () => {
    const report = await analyzeLines([
      proxyGet(at(0), V, { 'last-event-id': '1', 'mcp-session-id': 'old-S9' }, 200, ['2', '3']),
      proxyGet(at(1), V, { 'last-event-id': '7' }, 200),
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => [f.severity, f.session, evidenceLines(f)])).toEqual([
      ['error', 'old-S9', [1]],
      ['error', null, [2]],
    ]);
    expect(found[0]!.message).toBe(
      'a GET at protocol 2026-07-28 carrying Last-Event-ID 1 was resumed (a proxy saw 200, then event ids 2, 3): that revision has no GET stream and no resumption, the server must answer a GET 405',
    );
    expect(found[1]!.message).toContain('carrying Last-Event-ID 7 was resumed (a proxy saw 200)');
  });

  it('near miss: a proxy GET rejected, one without the header, one at 2025-11-25, and a proxy POST whatever ids it saw', async () => {
    const report = await analyzeLines([
      proxyGet(at(0), V, { 'last-event-id': '1' }, 405),
      proxyGet(at(1), V, {}, 200, ['0', '1']),
      proxyGet(at(2), '2025-11-25', { 'last-event-id': '1', 'mcp-session-id': 'S1' }, 200, ['2', '3']),
      // a POST's response stream may be the fresh one it asked for: ids numbered per stream prove no replay
      {
        ts: at(3), kind: 'http', method: 'POST', path: '/mcp', status: 200,
        req_headers: { 'mcp-protocol-version': V, 'content-type': 'application/json', 'last-event-id': '1' },
        resp_headers: { 'content-type': 'text/event-stream' }, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 2, sse_event_ids: ['2', '3'],
      },
      // the same with a stale session the response echoed: a session-in-stateless-era finding, still no replay shown
      {
        ts: at(4), kind: 'http', method: 'POST', path: '/mcp', status: 200,
        req_headers: { 'mcp-protocol-version': V, 'content-type': 'application/json', 'last-event-id': '1', 'mcp-session-id': 'L1' },
        resp_headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'L1' }, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 3, sse_event_ids: ['2', '3'],
      },
    ]);
    expect(report.summary.rejected_lines).toBe(0);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'session-in-stateless-era').map(evidenceLines)).toEqual([[5]]);
  });
});
