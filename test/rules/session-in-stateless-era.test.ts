import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'session-in-stateless-era';

describe(RULE, () => {
  it('fires on a session created at 2026-07-28, naming the version and the session', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'call', rpc_id: 1, method: 'tools/call', status: 200, protocol_version: '2026-07-28' },
      { ts: at(1), kind: 'session.created', session: 'S1', protocol_version: '2026-07-28' },
    ]);
    const [f, ...more] = findingsOf(report, RULE);
    expect(more).toEqual([]);
    expect(f).toMatchObject({ severity: 'error', session: 'S1' });
    expect(f!.message).toContain('2026-07-28');
    expect(evidenceLines(f!)).toEqual([2]);
  });

  it('fires where the version is inherited from the session, and on a proxy response carrying Mcp-Session-Id', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 'g', via: 'get', protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28' }, resp_headers: { 'mcp-session-id': 'S2', 'content-type': 'application/json' } },
    ]);
    expect(findingsOf(report, RULE).map((f) => [f.session, evidenceLines(f)])).toEqual([
      ['S1', [1]],
      ['S2', [3]],
    ]);
  });

  it('near miss: sessions at earlier revisions, or with no version logged, do not fire', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
      { ts: at(1), kind: 'session.created', session: 'S2' },
      { ts: at(2), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2025-06-18' }, resp_headers: { 'mcp-session-id': 'S3' } },
      { ts: at(3), kind: 'call', rpc_id: 1, method: 'tools/call', status: 200, protocol_version: '2026-07-28' },
      // a version that is not a date names no revision, though it sorts after every date
      { ts: at(4), kind: 'session.created', session: 'S4', protocol_version: 'latest' },
      { ts: at(5), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': 'DRAFT-2026-v1' }, resp_headers: { 'mcp-session-id': 'S5' } },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });
});
