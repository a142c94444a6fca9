import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = (session: string, ms = 0, principal: string | null = 'alice') => ({
  ts: at(ms), kind: 'session.created', session, ...(principal && { principal }),
});
const call = (ms: number, session: string, rpcId: string, extra: Record<string, unknown> = {}) => ({
  ts: at(ms), kind: 'call', session, rpc_id: rpcId, method: 'tools/call', tool: 'send_email', args_hash: 'h1', status: 200, ...extra,
});

describe('duplicate-tool-call', () => {
  it('flags one rpc id executed twice in a session', async () => {
    const report = await analyzeLines([created('S1'), call(1000, 'S1', '7'), call(5000, 'S1', '7')]);
    const [f, ...rest] = findingsOf(report, 'duplicate-tool-call');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('tools/call send_email with rpc id 7 was executed twice in S1');
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  // A proxy in front of the server logs the same POST the server logs as a call, without a shared req.
  const proxyPost = (ms: number, rpcId: string, durationMs: number) => ({
    ts: at(ms), kind: 'http', method: 'POST', path: '/mcp', status: 200, duration_ms: durationMs, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: rpcId,
    req_headers: { 'mcp-session-id': 'S1' }, resp_headers: { 'content-type': 'application/json' },
  });

  it('counts one POST once when both the proxy and the server logged it, without req', async () => {
    const report = await analyzeLines([created('S1'), proxyPost(1000, '7', 3000), call(3500, 'S1', '7')]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('still flags a retry the proxy saw that the server logged too', async () => {
    const report = await analyzeLines([created('S1'), proxyPost(1000, '7', 200), call(1100, 'S1', '7'), proxyPost(9000, '7', 200), call(9100, 'S1', '7')]);
    expect(findingsOf(report, 'duplicate-tool-call')).toHaveLength(1);
  });

  it('is not knowable from a proxy alone: a 2xx does not say the server executed the call again', async () => {
    const report = await analyzeLines([created('S1'), proxyPost(1000, '7', 200), proxyPost(9000, '7', 200)]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([
      { rule: 'duplicate-tool-call', session: 'S1', reason: expect.stringMatching(/^proxy log only: tools\/call \(rpc id 7\) got a 2xx .* could not be seen$/) },
    ]);
  });

  it('does not take an rpc id a restarted client reused for another tool or other arguments as the same call', async () => {
    const report = await analyzeLines([created('S1'), call(1000, 'S1', '1'), call(7000, 'S1', '1', { tool: 'list_files' }), call(9000, 'S1', '1', { args_hash: 'h2' })]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('does not count a call the server deduplicated (executed: false)', async () => {
    const report = await analyzeLines([created('S1'), call(1000, 'S1', '7'), call(5000, 'S1', '7', { executed: false })]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('flags a retry from a new session after a 404, naming the later session', async () => {
    const report = await analyzeLines([
      created('S1'),
      call(1000, 'S1', '7'),
      { ts: at(2000), kind: 'request.answered', session: 'S1', request_id: 'r5', status: 404 },
      created('S2', 3000),
      call(4000, 'S2', '1'),
    ]);
    const [f] = findingsOf(report, 'duplicate-tool-call');
    expect(f?.session).toBe('S2');
    expect(f?.message).toContain('for alice');
    expect(f?.message).toContain('in S1 (rpc id 7)');
    expect(f?.message).toContain('a POST of alice got 404 at 2026-11-09T10:00:02.000Z');
    expect(f?.message).toContain('again in S2 (rpc id 1)');
    expect(evidenceLines(f!)).toEqual([2, 3, 5]);
  });

  it('flags a retry after the first session ended', async () => {
    const report = await analyzeLines([
      created('S1'),
      call(1000, 'S1', '7'),
      { ts: at(2000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' },
      call(4000, 'S3', '2', { principal: 'alice' }),
    ]);
    const [f] = findingsOf(report, 'duplicate-tool-call');
    expect(f?.session).toBe('S3');
    expect(f?.message).toContain('after S1 ended');
    expect(evidenceLines(f!)).toEqual([2, 3, 4]);
  });

  it('does not flag the same call repeated with nothing in between, outside the window, or by another principal', async () => {
    const repeated = await analyzeLines([created('S1'), call(1000, 'S1', '7'), call(2000, 'S1', '8')]);
    expect(findingsOf(repeated, 'duplicate-tool-call')).toEqual([]);

    const late = await analyzeLines([
      created('S1'),
      call(1000, 'S1', '7'),
      { ts: at(2000), kind: 'session.terminated', session: 'S1' },
      created('S2', 3000),
      call(70_000, 'S2', '1'),
    ]);
    expect(findingsOf(late, 'duplicate-tool-call')).toEqual([]);

    const others = await analyzeLines([
      created('S1'),
      call(1000, 'S1', '7'),
      { ts: at(2000), kind: 'session.terminated', session: 'S1' },
      created('S2', 3000, 'bob'),
      call(4000, 'S2', '1'),
    ]);
    expect(findingsOf(others, 'duplicate-tool-call')).toEqual([]);
  });

  it('is not knowable when no principal ties the two sessions together', async () => {
    const report = await analyzeLines([
      created('S1', 0, null),
      call(1000, 'S1', '7'),
      { ts: at(2000), kind: 'session.terminated', session: 'S1' },
      created('S2', 3000, null),
      call(4000, 'S2', '1'),
    ]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([
      { rule: 'duplicate-tool-call', session: 'S2', reason: expect.stringMatching(/no principal/) },
    ]);
  });
});
