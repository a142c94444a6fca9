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
