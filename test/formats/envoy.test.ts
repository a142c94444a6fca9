import { describe, expect, it } from 'vitest';
import { iso, load, ofKind } from './rows.js';

// Envoy `json_format` lines as the README recommends them: typed values
// (numbers stay numbers), null for a header that was not there.

const T0 = Date.parse('2026-11-09T09:15:02.000Z');
const S = '3b9d2c1e-7a4f-4e58-9c0d-2f6b8a1e5d73';

function line(startMs: number, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    start_time: new Date(startMs).toISOString(),
    method: 'GET',
    path: '/mcp',
    response_code: 200,
    mcp_session_id: null,
    last_event_id: null,
    accept: 'application/json, text/event-stream',
    resp_mcp_session_id: null,
    resp_content_type: null,
    duration: 3,
    bytes_sent: 120,
    connection_id: 5121,
    x_request_id: '6b1f0e2c-1d2a-4c3b-9e8f-7a6b5c4d3e2f',
    upstream_host: '10.0.2.11:8080',
    ...fields,
  };
}

describe('Envoy access lines through the pipeline', () => {
  it('an initialize POST answered with a new Mcp-Session-Id mints that session on the upstream that answered', async () => {
    const { rows, stats } = await load([
      line(T0, { method: 'POST', resp_mcp_session_id: S, resp_content_type: 'application/json', principal: 'sub:alice' }),
    ]);
    expect(stats.format).toBe('envoy');
    expect(ofKind(rows, 'session.created').map((r) => [r.session, r.node, r.principal, r.ts_ms])).toEqual([[S, '10.0.2.11:8080', 'sub:alice', T0]]);
    expect(ofKind(rows, 'upgrade')[0]).toMatchObject({ decision: 'fresh', new_session: S, status: 200 });
  });

  it('a resumption accepted with text/event-stream keeps its start time, duration, connection and request id', async () => {
    const { rows } = await load([
      line(T0, { mcp_session_id: S, last_event_id: 'g1-17', resp_content_type: 'text/event-stream', duration: 238117, connection_id: 5131 }),
    ]);
    expect(ofKind(rows, 'upgrade')[0]).toMatchObject({ decision: 'resume', session: S, last_event_id: 'g1-17', status: 200, conn: '5131', node: '10.0.2.11:8080' });
    expect(ofKind(rows, 'http')[0]).toMatchObject({ duration_ms: 238117, bytes: 120, req: '6b1f0e2c-1d2a-4c3b-9e8f-7a6b5c4d3e2f', session: S });
    expect(iso(rows[0]!.ts_ms)).toBe(iso(T0));
  });

  it('a 404 on a resumption is a rejection', async () => {
    const { rows } = await load([line(T0, { mcp_session_id: S, last_event_id: 'g1-58', response_code: 404, resp_content_type: 'application/json' })]);
    expect(ofKind(rows, 'upgrade').map((r) => [r.decision, r.status, r.last_event_id])).toEqual([['reject', 404, 'g1-58']]);
  });

  it('a response POST answered 404 is a lost answer where a filter logs the JSON-RPC kind and id', async () => {
    const { rows } = await load([line(T0, { method: 'POST', mcp_session_id: S, response_code: '404', rpc_kind: 'response', rpc_id: 12 })]);
    expect(ofKind(rows, 'request.answered').map((r) => [r.session, r.request_id, r.status])).toEqual([[S, '12', 404]]);
  });

  // The header keys people write for %REQ(MCP-SESSION-ID)% and friends.
  it.each([
    { 'MCP-SESSION-ID': S, 'LAST-EVENT-ID': '5', 'RESP-CONTENT-TYPE': 'text/event-stream' },
    { 'mcp-session-id': S, 'last-event-id': '5', 'content-type': 'text/event-stream' },
    { mcpSessionId: S, lastEventId: '5', responseContentType: 'text/event-stream' },
    { req_mcp_session_id: S, request_last_event_id: '5', response_content_type: 'text/event-stream' },
  ])('recognises header keys %j', async (headers) => {
    const base = line(T0, {});
    delete base.mcp_session_id;
    delete base.last_event_id;
    const { rows } = await load([{ ...base, ...headers }]);
    expect(ofKind(rows, 'upgrade').map((r) => [r.decision, r.session, r.last_event_id])).toEqual([['resume', S, '5']]);
  });

  it('recognises camelCase default keys (startTime, responseCode)', async () => {
    const { rows, stats } = await load([
      { startTime: new Date(T0).toISOString(), method: 'POST', path: '/mcp', responseCode: 200, respMcpSessionId: S, bytesSent: 9, connectionId: 4, upstreamHost: 'b:80' },
    ]);
    expect(stats.format).toBe('envoy');
    expect(ofKind(rows, 'session.created').map((r) => [r.session, r.node, r.conn])).toEqual([[S, 'b:80', '4']]);
  });

  it.each([null, '-', ''])('treats %j as absent', async (unset) => {
    const { rows } = await load([
      line(T0, { method: 'POST', mcp_session_id: S, last_event_id: unset, resp_mcp_session_id: unset, upstream_host: unset }),
    ]);
    expect(rows.map((r) => [r.kind, r.node])).toEqual([['http', null]]);
  });

  it('ignores response code 0 (the client left before any response) and requests that are not MCP traffic', async () => {
    const { rows, stats } = await load([
      line(T0, { mcp_session_id: S, last_event_id: 'g1-58', response_code: 0 }),
      line(T0 + 1, { path: '/stats/prometheus', accept: '*/*', resp_content_type: 'text/plain' }),
      line(T0 + 2, { mcp_session_id: S, resp_content_type: 'text/event-stream' }),
    ]);
    expect(stats).toMatchObject({ lines: 3, recordLines: 1, ignored: 2, rejected: 0 });
    expect(ofKind(rows, 'upgrade').map((r) => [r.decision, r.ts_ms])).toEqual([['attach', T0 + 2]]);
  });
});
