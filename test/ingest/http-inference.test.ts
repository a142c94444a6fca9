import { describe, expect, it } from 'vitest';
import type { NormalizedRecord } from '../../src/model/record.js';
import { T0, T0_MS, ingestFiles, outcomeOf, rows } from './support.js';

// log-format.md "Proxy access records": what the analyzer infers from one
// `http` record, and how a request logged by both proxy and server counts once.

const SSE = { 'content-type': 'text/event-stream' };

function inferred(http: Record<string, unknown>): NormalizedRecord[] {
  const out = outcomeOf({ ts: T0, kind: 'http', ...http });
  if (out.type !== 'records') throw new Error(`expected records, got ${JSON.stringify(out)}`);
  expect(out.records[0]).toMatchObject({ kind: 'http', origin: 'proxy' });
  return out.records.slice(1);
}

describe('the http record itself', () => {
  const httpOf = (fields: Record<string, unknown>) => {
    const out = outcomeOf({ ts: T0, kind: 'http', method: 'POST', path: '/mcp', status: 404, ...fields });
    if (out.type !== 'records') throw new Error(`expected records, got ${JSON.stringify(out)}`);
    return out.records[0]!;
  };

  it("belongs to its request's session, as an access line's does, where it names none", () => {
    expect(httpOf({ req_headers: { 'Mcp-Session-Id': 'SPB' } }).session).toBe('SPB');
  });

  it('near misses: a session the record names wins over the header; no header, no session', () => {
    expect(httpOf({ session: 'S9', req_headers: { 'mcp-session-id': 'SPB' } }).session).toBe('S9');
    expect(httpOf({ req_headers: {} }).session).toBeUndefined();
  });
});

describe('inference from one http record', () => {
  it('a GET with last-event-id that got 200 text/event-stream is an accepted resumption', () => {
    const got = inferred({
      method: 'GET', path: '/mcp', status: 200, conn: 'c2', node: 'edge-1',
      req_headers: { 'Mcp-Session-Id': 'S1', 'Last-Event-ID': '41' }, resp_headers: SSE,
    });
    // node edge-1 is the proxy host that wrote the line, not the server node that answered: the upgrade names none
    expect(got).toEqual([{ kind: 'upgrade', tsMs: T0_MS, origin: 'proxy', session: 'S1', lastEventId: '41', decision: 'resume', status: 200, httpMethod: 'GET', conn: 'c2' }]);
  });

  it('an upstream the proxy line names (upstream, upstream_addr, upstream_host) is the node of what is inferred', () => {
    for (const key of ['upstream', 'upstream_addr', 'upstream_host']) {
      const [u] = inferred({
        method: 'GET', path: '/mcp', status: 200, node: 'edge-1', [key]: 'mcp-a',
        req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '41' }, resp_headers: SSE,
      });
      expect(u).toMatchObject({ kind: 'upgrade', node: 'mcp-a' });
    }
  });

  it('a POST with last-event-id that got 200 text/event-stream is an accepted resumption too', () => {
    const [u] = inferred({ method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': 41 }, resp_headers: SSE });
    expect(u).toMatchObject({ kind: 'upgrade', decision: 'resume', status: 200, lastEventId: '41' });
  });

  it('a 404 on a request with last-event-id is a rejection', () => {
    const [u, ...rest] = inferred({ method: 'GET', path: '/mcp', status: 404, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '41' }, resp_headers: {} });
    expect(rest).toEqual([]);
    expect(u).toMatchObject({ kind: 'upgrade', session: 'S1', lastEventId: '41', decision: 'reject', status: 404 });
  });

  it('a GET without last-event-id that got a stream is an attach (session resumption)', () => {
    const [u] = inferred({ method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: SSE });
    expect(u).toMatchObject({ kind: 'upgrade', session: 'S1', lastEventId: null, decision: 'attach', status: 200 });
  });

  it('a minted session id in the response is session.created plus a fresh upgrade', () => {
    const got = inferred({
      method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0,
      req_headers: {}, resp_headers: { 'mcp-session-id': 'S-new', 'content-type': 'application/json' },
    });
    expect(got.map((r) => [r.kind, r.session, r.decision, r.newSession])).toEqual([
      ['session.created', 'S-new', undefined, undefined],
      ['upgrade', null, 'fresh', 'S-new'],
    ]);
  });

  it('a response session id that differs from the presented one is a re-mint (fresh, with both ids)', () => {
    const got = inferred({
      method: 'GET', path: '/mcp', status: 200, reset_signalled: true,
      req_headers: { 'mcp-session-id': 'S-old', 'last-event-id': '9' }, resp_headers: { 'Mcp-Session-Id': 'S-new', ...SSE },
    });
    expect(got.map((r) => r.kind)).toEqual(['session.created', 'upgrade']);
    expect(got[1]).toMatchObject({ session: 'S-old', lastEventId: '9', decision: 'fresh', newSession: 'S-new', resetSignalled: true });
  });

  it('the same session id echoed in the response is not a new session', () => {
    const got = inferred({ method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: { 'mcp-session-id': 'S1', ...SSE } });
    expect(got.map((r) => [r.kind, r.decision])).toEqual([['upgrade', 'attach']]);
  });

  it('a POST carrying a JSON-RPC response that got 404 is a request.answered with status 404', () => {
    const got = inferred({ method: 'POST', path: '/mcp', status: 404, rpc_kind: 'response', rpc_id: 'r7', req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} });
    expect(got).toEqual([{ kind: 'request.answered', tsMs: T0_MS, origin: 'proxy', session: 'S1', requestId: 'r7', status: 404 }]);
  });

  it('a POST carrying a JSON-RPC request is a call', () => {
    const got = inferred({
      method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 3,
      req_headers: { 'mcp-session-id': ['S1'] }, resp_headers: SSE,
    });
    expect(got).toEqual([{ kind: 'call', tsMs: T0_MS, origin: 'proxy', session: 'S1', rpcId: '3', method: 'tools/call', status: 200 }]);
  });

  it('a 2026-07-28 POST carrying a stale mcp-session-id and last-event-id is the session-less call it carries, not a resume', () => {
    const got = inferred({
      method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 5,
      req_headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-session-id': 'OLD-S', 'last-event-id': '41' }, resp_headers: SSE,
    });
    expect(got).toEqual([{ kind: 'call', tsMs: T0_MS, origin: 'proxy', session: null, rpcId: '5', method: 'tools/call', status: 200, protocolVersion: '2026-07-28' }]);
  });

  it('near misses: the same POST at 2025-11-25 is a resume; at 2026-07-28 with the id echoed back it is one of that session', () => {
    const req = { method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 5 };
    const [legacy] = inferred({ ...req, req_headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'OLD-S', 'last-event-id': '41' }, resp_headers: SSE });
    expect(legacy).toMatchObject({ kind: 'upgrade', session: 'OLD-S', decision: 'resume' });
    const [echoed] = inferred({
      ...req, req_headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-session-id': 'OLD-S' }, resp_headers: { ...SSE, 'mcp-session-id': 'OLD-S' },
    });
    expect(echoed).toMatchObject({ kind: 'call', session: 'OLD-S' });
  });

  it('a request the proxy cannot read anything into yields only the http record', () => {
    expect(inferred({ method: 'DELETE', path: '/mcp', status: 204, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} })).toEqual([]);
  });

  it('stores the http record with its request line and lower-cased headers', async () => {
    const { db } = await ingestFiles({
      'proxy.ndjson': [{ ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: 200, duration_ms: 1500, sse_event_ids: [42, '43'], req_headers: { 'Last-Event-ID': '41', 'MCP-Session-Id': 'S1' }, resp_headers: SSE }],
    });
    expect(rows(db, 'SELECT kind, origin, http_method, path, status, duration_ms, sse_event_ids, req_headers FROM records ORDER BY id')).toEqual([
      { kind: 'http', origin: 'proxy', http_method: 'GET', path: '/mcp', status: 200, duration_ms: 1500, sse_event_ids: '["42","43"]', req_headers: '{"last-event-id":"41","mcp-session-id":"S1"}' },
      // the upgrade keeps the method (the engine replay judges a stateless-era request by it), nothing else of the line
      { kind: 'upgrade', origin: 'proxy', http_method: 'GET', path: null, status: 200, duration_ms: 1500, sse_event_ids: null, req_headers: null },
    ]);
  });
});

describe('a request logged by both proxy and server', () => {
  const proxy = [
    { ts: T0, kind: 'http', req: 'q1', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1', 'last-event-id': '5' }, resp_headers: SSE },
    { ts: T0, kind: 'http', req: 'q2', method: 'POST', path: '/mcp', status: 404, rpc_kind: 'response', rpc_id: 'r1', req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} },
    { ts: T0, kind: 'http', req: 'q3', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: SSE },
  ];
  const server = [
    { ts: T0, kind: 'upgrade', req: 'q1', session: 'S1', last_event_id: 5, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 },
    { ts: T0, kind: 'request.answered', req: 'q2', session: 'S1', request_id: 'r1', status: 404 },
  ];

  it('is counted once: the server record stands, the proxy inference is shadowed', async () => {
    const { db } = await ingestFiles({ 'proxy.ndjson': proxy, 'server.ndjson': server });
    expect(rows(db, 'SELECT req, origin, decision FROM upgrades ORDER BY req')).toEqual([
      { req: 'q1', origin: 'server', decision: 'resume' },
      { req: 'q3', origin: 'proxy', decision: 'attach' },
    ]);
    expect(rows(db, "SELECT req, origin FROM records WHERE kind = 'request.answered' AND shadowed = 0")).toEqual([{ req: 'q2', origin: 'server' }]);
    // The proxy's own lines stay as evidence of what it saw.
    expect(rows(db, "SELECT req, shadowed FROM http ORDER BY req")).toEqual([
      { req: 'q1', shadowed: 1 },
      { req: 'q2', shadowed: 1 },
      { req: 'q3', shadowed: 0 },
    ]);
  });

  it('is counted once whichever file comes first', async () => {
    const { db } = await ingestFiles({ 'server.ndjson': server, 'proxy.ndjson': proxy });
    expect(rows(db, 'SELECT req, origin FROM upgrades ORDER BY req')).toEqual([
      { req: 'q1', origin: 'server' },
      { req: 'q3', origin: 'proxy' },
    ]);
  });

  it('without a shared req, is the server record of the same kind, session and Last-Event-ID logged while it lasted', async () => {
    const { db } = await ingestFiles({ 'proxy.ndjson': proxy.map(({ req: _req, ...h }) => h), 'server.ndjson': server });
    expect(rows(db, 'SELECT origin, decision FROM upgrades ORDER BY origin')).toEqual([
      { origin: 'proxy', decision: 'attach' }, // only the proxy saw it: judged from the proxy's line
      { origin: 'server', decision: 'resume' },
    ]);
    expect(rows(db, "SELECT origin FROM records WHERE kind = 'request.answered' AND shadowed = 0")).toEqual([{ origin: 'server' }]);
  });

  it('with a req no server record carries (the proxy\'s own request id), pairs by time as without one', async () => {
    const { db } = await ingestFiles({ 'proxy.ndjson': proxy.map((h) => ({ ...h, req: `edge-${h.req}` })), 'server.ndjson': server });
    expect(rows(db, 'SELECT origin, decision FROM upgrades ORDER BY origin')).toEqual([
      { origin: 'proxy', decision: 'attach' },
      { origin: 'server', decision: 'resume' },
    ]);
    expect(rows(db, "SELECT origin FROM records WHERE kind = 'request.answered' AND shadowed = 0")).toEqual([{ origin: 'server' }]);
  });

  it('a session minted through a proxy that logs its own req is created once', async () => {
    const files = {
      'server.ndjson': [{ ts: T0, kind: 'session.created', session: 'S1', incarnation: 'i-1', principal: 'ivy', node: 'mcp-a' }],
      'proxy.ndjson': [{
        ts: T0, kind: 'http', req: 'edge-1', method: 'POST', path: '/mcp', status: 200, duration_ms: 20, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0,
        req_headers: { 'content-type': 'application/json' }, resp_headers: { 'mcp-session-id': 'S1', 'content-type': 'application/json' }, node: 'edge-proxy-1',
      }],
    };
    const { db } = await ingestFiles(files);
    expect(rows(db, "SELECT origin FROM records WHERE kind = 'session.created' AND shadowed = 0")).toEqual([{ origin: 'server' }]);
  });

  // A reviewer's log (min-eiws-268): a session-less resume the server logged 149 ms before the proxy's line of a
  // GET with the same Last-Event-ID and no session. Proxy and server clocks differ, so the window runs both ways,
  // and no session on either side is the same session: one request, as README ("One request in both…") says.
  // That log also had S1's stream; a log of session-less lines alone (a 2026-07-28 deployment's) pairs the same:
  // no session is dirty there, and the pairing once ran only with the derive of the sessions a load touched.
  const sessionless = (serverMs: number, lastEventId: number, withSession = true) => ({
    'server.ndjson': [
      ...(withSession ? [{ ts: new Date(T0_MS - 900).toISOString(), kind: 'stream.opened', session: 'S1', stream: 'st9', via: 'post' }] : []),
      { ts: new Date(T0_MS + serverMs).toISOString(), kind: 'upgrade', session: null, last_event_id: lastEventId, new_stream: 'st10', decision: 'resume', status: 200, replayed: 0 },
    ],
    'proxy.ndjson': [{ ts: T0, kind: 'http', method: 'GET', path: '/mcp', status: 200, duration_ms: 30, req_headers: { 'last-event-id': '58', accept: 'text/event-stream' }, resp_headers: SSE, node: 'proxy' }],
  });

  it('without a shared req or a session, is the session-less server record of its Last-Event-ID within a second either side', async () => {
    const { db } = await ingestFiles(sessionless(-149, 58));
    expect(rows(db, 'SELECT origin FROM upgrades')).toEqual([{ origin: 'server' }]);
  });

  it('pairs them in a log of session-less lines alone, as beside a session', async () => {
    const { db } = await ingestFiles(sessionless(-149, 58, false));
    expect(rows(db, 'SELECT origin FROM upgrades')).toEqual([{ origin: 'server' }]);
    // near miss: another Last-Event-ID is another request there too
    const other = await ingestFiles(sessionless(-149, 57, false));
    expect(rows(other.db, 'SELECT origin FROM upgrades ORDER BY origin')).toEqual([{ origin: 'proxy' }, { origin: 'server' }]);
  });

  it('near misses: a session-less server record more than a second before, or of another Last-Event-ID, is another request', async () => {
    for (const [ms, id] of [[-1200, 58], [-149, 57]] as const) {
      const { db } = await ingestFiles(sessionless(ms, id));
      expect(rows(db, 'SELECT origin FROM upgrades ORDER BY origin'), `${ms} ms, ${id}`).toEqual([{ origin: 'proxy' }, { origin: 'server' }]);
    }
  });

  it('without a shared req, pairs nothing logged outside the request or for another Last-Event-ID', async () => {
    const late = server.map((r) => (r.kind === 'upgrade' ? { ...r, ts: new Date(Date.parse(T0) + 5000).toISOString() } : r));
    const { db } = await ingestFiles({ 'proxy.ndjson': proxy.map(({ req: _req, ...h }) => h), 'server.ndjson': late });
    expect(rows(db, "SELECT count(*) AS n FROM upgrades WHERE origin = 'proxy'")).toEqual([{ n: 2 }]);
  });
});
