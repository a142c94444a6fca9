import { describe, expect, it } from 'vitest';
import { analyzeFilesOf, analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const answer404 = (ms: number, id: string, req?: string) => ({
  ts: at(ms), kind: 'request.answered', session: 'S1', request_id: id, status: 404, ...(req && { req }),
});
const proxyPost = (ms: number, id: string, req?: string) => ({
  ts: at(ms), kind: 'http', method: 'POST', path: '/mcp', status: 404, req_headers: { 'mcp-session-id': 'S1' }, rpc_kind: 'response', rpc_id: id, ...(req && { req }),
});

describe('404-storm', () => {
  // rules.md v2: a proxy POST without req and without a JSON-RPC id (a notification) is never merged by
  // time alone into a server 404 beside it; one with the same JSON-RPC id within its duration is.
  const notification404 = (ms: number) => ({
    ts: at(ms), kind: 'http', method: 'POST', path: '/mcp', status: 404, req_headers: { 'mcp-session-id': 'S1' }, rpc_kind: 'notification', rpc_method: 'notifications/cancelled', duration_ms: 1,
  });
  it('counts a proxy notification POST next to a server 404 as its own POST', async () => {
    const report = await analyzeLines([
      created, answer404(1000, 'r1'), notification404(1100), answer404(1200, 'r2'), answer404(1300, 'r3'), answer404(2000, 'r4'),
    ]);
    expect(findingsOf(report, '404-storm').map((f) => f.session)).toEqual(['S1']);
  });

  it('does not count twice a proxy POST with the JSON-RPC id of the server 404 beside it', async () => {
    const report = await analyzeLines([
      created, answer404(1000, 'r1'), proxyPost(1100, 'r1'), answer404(1200, 'r2'), answer404(1300, 'r3'), answer404(2000, 'r4'),
    ]);
    expect(findingsOf(report, '404-storm')).toEqual([]);
  });

  it('reports one storm, with the POSTs of its first window as evidence', async () => {
    const report = await analyzeLines([
      created,
      answer404(1000, 'r1'),
      answer404(2000, 'r2'),
      answer404(3000, 'r3'),
      { ts: at(4000), kind: 'call', session: 'S1', rpc_id: '9', method: 'tools/call', tool: 'search', status: 404 },
      answer404(5000, 'r4'),
      answer404(11_500, 'r5'),
      answer404(40_000, 'r6'),
    ]);
    const [f, ...rest] = findingsOf(report, '404-storm');
    expect(rest).toHaveLength(0);
    expect(f?.severity).toBe('warning');
    expect(f?.session).toBe('S1');
    // the fifth POST completes the storm
    expect(f?.at).toBe('2026-11-09T10:00:05.000Z');
    expect(f?.message).toContain('6 POSTs for S1 got 404');
    expect(f?.message).toContain('5 answers to server requests, 1 client call');
    expect(f?.message).toContain('r1, r2, r3, 9, r4 and 1 more');
    expect(evidenceLines(f!)).toEqual([2, 3, 4, 5, 6]);
  });

  it('counts a request logged by both the proxy and the server once', async () => {
    const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
    const files = {
      'proxy.ndjson': ids.map((id, i) => proxyPost(1000 * (i + 1), id, `q${i}`)),
      'server.ndjson': [created, ...ids.map((id, i) => answer404(1000 * (i + 1), id, `q${i}`))],
    };
    expect(findingsOf(await analyzeFilesOf(files, { stormCount: 6 }), '404-storm')).toEqual([]);
    const [f] = findingsOf(await analyzeFilesOf(files), '404-storm');
    expect(f?.message).toContain('5 POSTs');
    expect(f?.evidence.map((e) => `${e.file}:${e.line}`)).toEqual(['server.ndjson:2', 'server.ndjson:3', 'server.ndjson:4', 'server.ndjson:5', 'server.ndjson:6']);
  });

  it('counts a request logged by both the proxy and the server once, without req too', async () => {
    const ids = ['r1', 'r2', 'r3'];
    const files = {
      'proxy.ndjson': [...ids.map((id, i) => proxyPost(1000 * (i + 1), id)), proxyPost(4000, 'r9')],
      'server.ndjson': [created, ...ids.map((id, i) => answer404(1000 * (i + 1) + 20, id))],
    };
    // Three 404s both logged, one only the proxy saw: four POSTs, not seven.
    expect(findingsOf(await analyzeFilesOf(files), '404-storm')).toEqual([]);
    const [f] = findingsOf(await analyzeFilesOf(files, { stormCount: 4 }), '404-storm');
    expect(f?.message).toContain('4 POSTs');
  });

  it('pairs by time a proxy POST whose req no server record carries (the proxy\'s own request id)', async () => {
    const ids = ['r1', 'r2', 'r3'];
    const files = {
      'proxy.ndjson': [...ids.map((id, i) => proxyPost(1000 * (i + 1), id, `edge-${i}`)), proxyPost(4000, 'r9', 'edge-9')],
      'server.ndjson': [created, ...ids.map((id, i) => answer404(1000 * (i + 1) + 20, id))],
    };
    // As without req: three 404s both logged, one only the proxy saw.
    expect(findingsOf(await analyzeFilesOf(files), '404-storm')).toEqual([]);
    const [f] = findingsOf(await analyzeFilesOf(files, { stormCount: 4 }), '404-storm');
    expect(f?.message).toContain('4 POSTs');
  });

  it('counts a proxy POST once, not again as the answer inferred from it', async () => {
    const lines = ['r1', 'r2', 'r3', 'r4', 'r5'].map((id, i) => proxyPost(1000 * (i + 1), id));
    expect(findingsOf(await analyzeLines(lines, { stormCount: 6 }), '404-storm')).toEqual([]);
    const [f] = findingsOf(await analyzeLines(lines), '404-storm');
    expect(f?.message).toContain('5 POSTs logged by the proxy');
    expect(evidenceLines(f!)).toEqual([1, 2, 3, 4, 5]);
  });

  it('does not flag 404s spread wider than the window, and honours configured thresholds', async () => {
    const spread = [created, answer404(0, 'r1'), answer404(4000, 'r2'), answer404(8000, 'r3'), answer404(12_000, 'r4'), answer404(16_000, 'r5')];
    expect(findingsOf(await analyzeLines(spread), '404-storm')).toEqual([]);
    const [f] = findingsOf(await analyzeLines(spread, { stormCount: 3, stormWindowMs: 8000 }), '404-storm');
    expect(f?.message).toContain('at least 3 within 8 s');
    expect(evidenceLines(f!)).toEqual([2, 3, 4]);
  });

  it('reports two storms apart as two findings', async () => {
    const burst = (start: number, tag: string) => [0, 1, 2, 3, 4].map((i) => answer404(start + i * 100, `${tag}${i}`));
    const report = await analyzeLines([created, ...burst(1000, 'a'), ...burst(60_000, 'b')]);
    expect(findingsOf(report, '404-storm').map(evidenceLines)).toEqual([
      [2, 3, 4, 5, 6],
      [7, 8, 9, 10, 11],
    ]);
  });

  describe('a proxy and a server whose clocks drift seconds apart', () => {
    // The server's clock 2.5 s behind the proxy's: its record of each POST lies outside ts..ts+duration ±1 s.
    const skewed = (serverIds: string[], proxyIds: string[]) => ({
      'server.ndjson': [created, ...serverIds.map((id, i) => answer404(18_000 + 1000 * i, id))],
      'proxy.ndjson': proxyIds.map((id, i) => proxyPost(20_500 + 1000 * i, id)),
    });

    it('counts each POST once where the proxy\'s n-th line of a JSON-RPC id pairs with the server\'s n-th within the allowance', async () => {
      const ids = ['r1', 'r2', 'r3', 'r4', 'r5'];
      const [f, ...rest] = findingsOf(await analyzeFilesOf(skewed(ids, ids)), '404-storm');
      expect(rest).toEqual([]);
      expect(f?.message).toContain('5 POSTs for S1 got 404');
      expect(f?.message).toContain('5 answers to server requests)');
      expect(f?.message).toContain('JSON-RPC ids r1, r2, r3, r4, r5:');
      // three each side: below the threshold, as the reviewer's case (6 before)
      expect(findingsOf(await analyzeFilesOf(skewed(ids.slice(0, 3), ids.slice(0, 3))), '404-storm')).toEqual([]);
    });

    it('near miss: a second POST of one id only the proxy logged is a POST of its own, and the ids say how often', async () => {
      const [f] = findingsOf(await analyzeFilesOf(skewed(['r1', 'r2', 'r3', 'r4'], ['r1', 'r2', 'r3', 'r4', 'r4'])), '404-storm');
      expect(f?.message).toContain('5 POSTs for S1 got 404');
      expect(f?.message).toContain('4 answers to server requests, 1 POST logged by the proxy');
      expect(f?.message).toContain('JSON-RPC ids r1, r2, r3, r4 (2 POSTs):');
    });
  });
});

describe('404-storm: only POSTs that got 404 make a storm', () => {
  const proxy = (ms: number, method: string) => ({
    ts: at(ms), kind: 'http', method, path: '/mcp', status: 404, duration_ms: 3,
    req_headers: { 'mcp-session-id': 'S1', ...(method === 'GET' && { accept: 'text/event-stream' }) },
  });
  const sixBy = (method: string) => [1, 2, 3, 4, 5, 6].map((s) => proxy(s * 1000, method));

  it('does not count GETs that got 404: a storm is of POSTs (rules.md)', async () => {
    expect(findingsOf(await analyzeLines(sixBy('GET')), '404-storm')).toEqual([]);
  });

  it('near miss: the same six requests as POSTs are a storm', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(sixBy('POST')), '404-storm');
    expect(rest).toEqual([]);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('POSTs for S1 got 404');
  });

  const calls = (status: number) => [created, ...[1, 2, 3, 4, 5, 6].map((n) => ({
    ts: at(n * 1000), kind: 'call', session: 'S1', rpc_id: n, method: 'tools/call', tool: 't', status,
  }))];

  it('does not count POSTs refused 400: only a 404 says the session is gone', async () => {
    expect(findingsOf(await analyzeLines(calls(400)), '404-storm')).toEqual([]);
  });

  it('near miss: the same calls answered 404 are a storm', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(calls(404)), '404-storm');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('POSTs for S1 got 404');
  });
});
