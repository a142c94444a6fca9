import { describe, expect, it } from 'vitest';
import { iso, load, ofKind } from './rows.js';

// nginx `log_format mcp escape=json` lines, as the README recommends them:
// every variable quoted, "" or "-" for what was not set, times written when
// the request ended.

const T0 = Date.parse('2026-11-09T10:00:00.000Z');
const S = '9f2c41d7e0b34a5c8d6e1f2a3b4c5d6e';

function line(endMs: number, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    time_iso8601: new Date(endMs).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    msec: (endMs / 1000).toFixed(3),
    request_method: 'GET',
    request_uri: '/mcp',
    status: '200',
    http_mcp_session_id: '',
    http_last_event_id: '',
    http_accept: 'application/json, text/event-stream',
    sent_http_mcp_session_id: '',
    sent_http_content_type: '',
    request_time: '0.002',
    bytes_sent: '310',
    connection: '17',
    request_id: 'b7e1c0d2a3f4',
    remote_user: '',
    hostname: 'edge-1',
    ...fields,
  };
}

describe('nginx access lines through the pipeline', () => {
  it('an initialize POST whose response carries a new Mcp-Session-Id mints that session', async () => {
    const { rows, stats } = await load([
      line(T0 + 18, { request_method: 'POST', request_time: '0.018', sent_http_mcp_session_id: S, sent_http_content_type: 'application/json', token_fp: 'fp:9c1e' }),
    ]);
    expect(stats.format).toBe('nginx');
    expect(ofKind(rows, 'session.created').map((r) => [r.session, r.principal, r.ts_ms])).toEqual([[S, 'fp:9c1e', T0]]);
    const [fresh] = ofKind(rows, 'upgrade');
    expect(fresh).toMatchObject({ decision: 'fresh', new_session: S, session: null, status: 200, origin: 'proxy' });
    const [http] = ofKind(rows, 'http');
    expect(http).toMatchObject({ http_method: 'POST', path: '/mcp', status: 200, duration_ms: 18, bytes: 310, conn: '17', req: 'b7e1c0d2a3f4', node: 'edge-1' });
  });

  it('a GET with Last-Event-ID answered 200 text/event-stream is an accepted resumption, dated when it arrived', async () => {
    // The SSE stream lasted 95.5 s; nginx wrote the line when it ended.
    const end = T0 + 95_500 + 2_000;
    const { rows } = await load([
      line(end, { http_mcp_session_id: S, http_last_event_id: '41', sent_http_content_type: 'text/event-stream', request_time: '95.500' }),
    ]);
    const [up] = ofKind(rows, 'upgrade');
    expect(up).toMatchObject({ decision: 'resume', session: S, last_event_id: '41', status: 200 });
    expect(iso(up!.ts_ms)).toBe(iso(T0 + 2_000));
    expect(ofKind(rows, 'http')[0]!.duration_ms).toBe(95_500);
  });

  it('a 404 on a resumption is a rejection', async () => {
    const { rows } = await load([
      line(T0, { http_mcp_session_id: S, http_last_event_id: '41', status: '404', sent_http_content_type: 'application/json' }),
    ]);
    expect(ofKind(rows, 'upgrade').map((r) => [r.decision, r.status, r.session, r.last_event_id])).toEqual([['reject', 404, S, '41']]);
  });

  it('a POST whose logged body is a JSON-RPC response, answered 404, is a lost answer to a server request', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { action: 'accept' } });
    const { rows } = await load([
      line(T0, { request_method: 'POST', http_mcp_session_id: S, status: '404', request_body: body }),
      line(T0 + 400, { request_method: 'POST', http_mcp_session_id: S, status: '404', rpc_kind: 'response', rpc_id: '8', rpc_method: '' }),
    ]);
    expect(ofKind(rows, 'request.answered').map((r) => [r.session, r.request_id, r.status])).toEqual([
      [S, '7', 404],
      [S, '8', 404],
    ]);
    expect(ofKind(rows, 'http').map((r) => [r.http_method, r.status, r.session])).toEqual([
      ['POST', 404, S],
      ['POST', 404, S],
    ]);
  });

  it('a POST carrying a JSON-RPC request is a call', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'c-3', method: 'tools/call', params: { name: 'search' } });
    const { rows } = await load([line(T0, { request_method: 'POST', http_mcp_session_id: S, request_body: body, sent_http_content_type: 'text/event-stream' })]);
    expect(ofKind(rows, 'call').map((r) => [r.session, r.rpc_id, r.method, r.status])).toEqual([[S, 'c-3', 'tools/call', 200]]);
  });

  it.each(['-', ''])('treats %j as an unset variable, not as a header value', async (unset) => {
    const { rows } = await load([
      line(T0, {
        request_method: 'POST',
        http_mcp_session_id: S,
        http_last_event_id: unset,
        sent_http_mcp_session_id: unset,
        sent_http_content_type: unset,
        remote_user: unset,
        connection: unset,
      }),
    ]);
    // Had the placeholder been read as a value, this POST would be a resumption and would mint session "-".
    expect(rows.map((r) => r.kind)).toEqual(['http']);
    expect(rows[0]).toMatchObject({ session: S, principal: null, conn: null });
    expect(rows[0]!.req_headers).not.toHaveProperty('last-event-id');
    expect(rows[0]!.resp_headers).toEqual({});
  });

  it('reads $time_local, a $request line, a numeric status and $upstream_http_* when $sent_http_* is not logged', async () => {
    const { rows } = await load([
      {
        time_local: '09/Nov/2026:11:00:00 +0100',
        request: 'POST /mcp?tenant=a HTTP/1.1',
        status: 200,
        http_accept: 'application/json, text/event-stream',
        upstream_http_mcp_session_id: S,
        request_time: '0.000',
      },
    ]);
    expect(ofKind(rows, 'session.created').map((r) => [r.session, iso(r.ts_ms)])).toEqual([[S, iso(T0)]]);
    expect(ofKind(rows, 'http')[0]).toMatchObject({ http_method: 'POST', path: '/mcp', status: 200 });
  });

  it('prefers what the client received ($sent_http_*) over what the upstream sent', async () => {
    const { rows } = await load([
      line(T0, { request_method: 'POST', sent_http_mcp_session_id: S, upstream_http_mcp_session_id: 'upstream-view' }),
    ]);
    expect(ofKind(rows, 'session.created').map((r) => r.session)).toEqual([S]);
  });

  it('names the upstream that answered as the node, the last one after a retry', async () => {
    const { rows } = await load([line(T0, { http_mcp_session_id: S, upstream_addr: '10.0.1.7:8080, 10.0.1.8:8080' })]);
    expect(rows.map((r) => r.node)).toEqual(['10.0.1.8:8080', '10.0.1.8:8080']);
  });

  it('never stores a logged Authorization or Cookie header', async () => {
    const { rows } = await load([line(T0, { http_mcp_session_id: S, http_authorization: 'Bearer s3cr3t', http_cookie: 'sid=1' })]);
    expect(ofKind(rows, 'http')[0]!.req_headers).toEqual({ 'mcp-session-id': S, accept: 'application/json, text/event-stream' });
  });

  it('ignores requests that are not MCP traffic (health checks) and rejects a line whose time does not parse', async () => {
    const { rows, stats, rejected } = await load([
      line(T0, { request_uri: '/healthz', http_accept: '*/*' }),
      line(T0 + 1, { http_mcp_session_id: S }),
      { ...line(T0 + 2, { http_mcp_session_id: S }), msec: 'yesterday', time_iso8601: '-' },
    ]);
    expect(stats).toMatchObject({ lines: 3, recordLines: 1, ignored: 1, rejected: 1, format: 'nginx' });
    expect(ofKind(rows, 'upgrade').map((r) => r.decision)).toEqual(['attach']);
    expect(rejected).toEqual([{ line: 3, reason: expect.stringMatching(/^nginx: http: unparsable time "yesterday"/) }]);
  });
});
