import { describe, expect, it } from 'vitest';
import { analyzeLines, at } from '../helpers/logs.js';

// summary.records and summary.nodes: what the input held, read before trusting a report ("did it
// see all 3 nodes, all of the export?"). A record without a node counts in the total only; what the
// analyzer infers from a proxy line (another kind, origin proxy) is its reading, not input.
describe('summary: records and nodes', () => {
  it('counts every input record once, with or without a node, and each node its own', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' },
      { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get', node: 'a' },
      { ts: at(2), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e1' },
      { ts: at(3), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 'e2', node: 'b' },
      { ts: at(4), kind: 'session.created', session: 'S2' },
      { ts: at(5), kind: 'http', method: 'POST', path: '/mcp', status: 404, rpc_kind: 'response', rpc_id: 'r1', req_headers: { 'mcp-session-id': 'S9' }, resp_headers: {}, node: 'edge' },
    ]);
    expect(report.summary.records).toBe(6);
    expect(report.summary.nodes).toEqual({ a: { records: 2 }, b: { records: 1 }, edge: { records: 1 } });
  });

  it('a log with no node names none and still counts its records', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
    ]);
    expect(report.summary.records).toBe(2);
    expect(report.summary.nodes).toEqual({});
  });
});

// A 2026-07-28 request's Mcp-Session-Id is a header the server ignores: where no server answered with that
// session (no creation or mint, no accepted resume or attach, no response echoing it), it is no session.
describe('summary: a stale session header of the stateless era is no session', () => {
  const V = '2026-07-28';
  const stale = [
    { ts: at(0), kind: 'upgrade', session: 'OLD-S', last_event_id: '41', decision: 'fresh', status: 200, reason: 'stateless_request', protocol_version: V },
    { ts: at(1), kind: 'call', session: 'OLD-S', rpc_id: 3, method: 'tools/list', status: 200, protocol_version: V },
    { ts: at(2), kind: 'http', method: 'GET', path: '/mcp', status: 405, req_headers: { 'mcp-protocol-version': V, 'mcp-session-id': 'OLD-P' }, resp_headers: {} },
  ];

  it('counts neither a server\'s nor a proxy\'s stale id, and says nothing of it is hidden', async () => {
    const report = await analyzeLines(stale);
    expect(report.summary.sessions).toBe(0);
    expect(report.summary.protocol_versions).toEqual({});
    expect(report.not_knowable).toEqual([]);
  });

  it('near misses: an id a 2026-07-28 response echoed, or a request of an earlier revision presented, is a session', async () => {
    const echoed = { ts: at(3), kind: 'http', method: 'POST', path: '/mcp', status: 200, rpc_kind: 'request', rpc_method: 'tools/list', rpc_id: 4,
      req_headers: { 'mcp-protocol-version': V, 'mcp-session-id': 'OLD-P' }, resp_headers: { 'content-type': 'application/json', 'mcp-session-id': 'OLD-P' } };
    const legacy = { ts: at(4), kind: 'call', session: 'OLD-S', rpc_id: 5, method: 'tools/list', status: 200, protocol_version: '2025-11-25' };
    const report = await analyzeLines([...stale, echoed, legacy]);
    expect(report.summary.sessions).toBe(2);
    expect(Object.values(report.summary.protocol_versions).reduce((a, b) => a + b, 0)).toBe(2);
  });
});
