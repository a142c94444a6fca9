import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'session-id-reuse';

describe('session-id-reuse', () => {
  it('flags a second session.created for one id string, whatever the incarnations say', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', incarnation: 'i-1', node: 'a' }, // 1
      { ts: at(1000), kind: 'session.evicted', session: 'S1' }, // 2
      { ts: at(2000), kind: 'session.created', session: 'S1', incarnation: 'i-1', node: 'b' }, // 3
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('session id S1 was created again');
    expect(f!.message).toContain('on node b');
    expect(evidenceLines(f!)).toEqual([1, 3]);
  });

  it("does not count a proxy's inferred creation beside the server's own, nor distinct ids", async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: {}, resp_headers: { 'mcp-session-id': 'S1' } },
      { ts: at(1), kind: 'session.created', session: 'S1' },
      { ts: at(2), kind: 'session.created', session: 'S2' },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });
});
