import { describe, expect, it } from 'vitest';
import { analyzeLines, at, findingsOf } from '../helpers/logs.js';

// Revision audit, item 3: a session id that only stateless-era requests presented and no server answered with
// is a stale header the server ignored, not a session (the stale_session_ids view). The summary counts no
// session for it; the rules that group by session do not judge it as one either.

const V = '2026-07-28';

/** A 2026-07-28 tools/call that presents the stale id `session` (logged as received) on its own response stream. */
const statelessCall = (ms: number, rpcId: number, stream: string, session: string | undefined, version = V) => {
  const s = session === undefined ? {} : { session };
  return [
    { ts: at(ms), kind: 'call', ...s, rpc_id: rpcId, method: 'tools/call', tool: `t${rpcId}`, args_hash: `h${rpcId}`, status: 200, stream, principal: 'alice', protocol_version: version },
    { ts: at(ms + 1), kind: 'stream.opened', ...s, stream, via: 'post', protocol_version: version },
    { ts: at(ms + 2), kind: 'event.sent', ...s, stream, event_id: '0', rpc_kind: 'notification', method: 'notifications/progress', protocol_version: version },
    { ts: at(ms + 200), kind: 'event.sent', ...s, stream, event_id: '1', rpc_kind: 'response', rpc_id: rpcId, protocol_version: version },
    { ts: at(ms + 201), kind: 'stream.closed', ...s, stream, reason: 'server', protocol_version: version },
  ];
};

/** Six proxy POSTs answered 404 within a few seconds, each presenting `session`. */
const notFoundPosts = (session: string, version: string) =>
  [1, 2, 3, 4, 5, 6].map((i) => ({
    ts: at(i * 1000), kind: 'http', method: 'POST', path: '/mcp', status: 404,
    req_headers: { 'mcp-protocol-version': version, 'mcp-session-id': session, 'content-type': 'application/json' },
    resp_headers: { 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'resources/subscribe_x', rpc_id: i, principal: 'alice',
  }));

describe('stale session ids are no sessions for the rules', () => {
  it('event-id-regression: two stateless requests presenting one stale id each number their own stream from 0', async () => {
    const report = await analyzeLines([...statelessCall(1000, 1, 'r0', 'L1'), ...statelessCall(5000, 2, 'r1', 'L1')]);
    expect(report.summary.sessions).toBe(0);
    expect(findingsOf(report, 'event-id-regression')).toEqual([]);
  });

  it('near miss: the same ids under a session the server answered with (it echoed it) restart its sequence', async () => {
    const report = await analyzeLines([
      ...statelessCall(1000, 1, 'r0', 'L1'),
      { ts: at(1100), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': V, 'mcp-session-id': 'L1' }, resp_headers: { 'mcp-session-id': 'L1', 'content-type': 'application/json' } },
      ...statelessCall(5000, 2, 'r1', 'L1'),
    ]);
    expect(findingsOf(report, 'session-in-stateless-era').map((f) => f.session)).toEqual(['L1']);
    expect(findingsOf(report, 'event-id-regression').map((f) => f.session)).toEqual(['L1']);
  });

  it('404-storm: at 2026-07-28 a 404 is a method not found, and the stale id no session', async () => {
    const report = await analyzeLines(notFoundPosts('L1', V));
    expect(report.summary.sessions).toBe(0);
    expect(findingsOf(report, '404-storm')).toEqual([]);
  });

  it('near miss: the same 404s at 2025-11-25 are a storm for a session the server no longer knows', async () => {
    const report = await analyzeLines(notFoundPosts('L1', '2025-11-25'));
    expect(findingsOf(report, '404-storm').map((f) => f.session)).toEqual(['L1']);
  });

  it('duplicate-tool-call: one JSON-RPC id used by two stateless requests is no id reused in a session', async () => {
    const report = await analyzeLines([...statelessCall(1000, 1, 'r0', 'L1'), ...statelessCall(70_000, 1, 'r1', 'L1')]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
    // near miss: the same calls at 2025-11-25, where L1 is a session, ran one id twice in it
    const legacy = await analyzeLines([...statelessCall(1000, 1, 'r0', 'L1', '2025-11-25'), ...statelessCall(70_000, 1, 'r1', 'L1', '2025-11-25')]);
    expect(findingsOf(legacy, 'duplicate-tool-call').map((f) => f.session)).toEqual(['L1']);
  });

  it('orphaned-request and stranded-response read a stale id as no session, as they read a request without one', async () => {
    const stranding = (session: string | undefined) => {
      const s = session === undefined ? {} : { session };
      return [
        { ts: at(1000), kind: 'call', ...s, rpc_id: 1, method: 'tools/call', tool: 't', args_hash: 'h', status: 200, stream: 'r0', protocol_version: V },
        { ts: at(1001), kind: 'stream.opened', ...s, stream: 'r0', via: 'post', protocol_version: V },
        { ts: at(1003), kind: 'request.sent', ...s, stream: 'r0', request_id: 'q1', method: 'sampling/createMessage', event_id: '1', protocol_version: V },
        { ts: at(1003), kind: 'event.sent', ...s, stream: 'r0', event_id: '1', rpc_kind: 'request', rpc_id: 'q1', method: 'sampling/createMessage', protocol_version: V },
        { ts: at(1100), kind: 'stream.closed', ...s, stream: 'r0', reason: 'error', protocol_version: V },
        { ts: at(1200), kind: 'event.sent', ...s, stream: 'r0', event_id: '2', rpc_kind: 'response', rpc_id: 1, attached: false, protocol_version: V },
        { ts: at(90_000), kind: 'call', rpc_id: 2, method: 'tools/list', status: 200, protocol_version: V },
      ];
    };
    const withoutSession = await analyzeLines(stranding(undefined));
    const stale = await analyzeLines(stranding('L1'));
    const judged = (r: typeof stale) => r.findings.filter((f) => f.rule !== 'engine-divergence').map((f) => [f.rule, f.message]);
    expect(judged(stale)).toEqual(judged(withoutSession));
    expect(findingsOf(stale, 'orphaned-request')).toEqual([]);
    expect(findingsOf(stale, 'stranded-response')[0]!.message).toContain('it has no session');
  });
});
