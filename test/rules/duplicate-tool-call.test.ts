import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';
import { ruleOf } from '../../src/detect/rules/index.js';

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

  // A proxy that retries a POST upstream after a reset: the client sent it once, two nodes executed it.
  const proxyRetry = (secondProxyLine: boolean) => [
    created('S1'),
    { ...proxyPost(1000, '7', 6200), node: 'edge-1' },
    call(1020, 'S1', '7', { node: 'mcp-a' }),
    call(5050, 'S1', '7', { node: 'mcp-b' }),
    ...(secondProxyLine ? [{ ...proxyPost(5000, '7', 1200), node: 'edge-1' }] : []),
  ];

  it('cites the proxy line that shows the client sent the call once: the proxy retried it, not the client', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(proxyRetry(false)), 'duplicate-tool-call');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(
      'tools/call send_email with rpc id 7 was executed twice in S1: at 2026-11-09T10:00:01.020Z on mcp-a and again at 2026-11-09T10:00:05.050Z on mcp-b; ' +
        "the proxy logged the client's request once (edge-1 at 2026-11-09T10:00:01.000Z, lasting 6200 ms), so the proxy sent it upstream again, not the client",
    );
    expect(evidenceLines(f!)).toEqual([2, 3, 4]);
    expect(ruleOf('duplicate-tool-call').explanation.fitted?.(f!.message)?.shouldHave).toMatch(/^Do not let the proxy retry a POST/);
  });

  it('near miss: a second proxy line of the same rpc id is the client sending it again', async () => {
    const [f] = findingsOf(await analyzeLines(proxyRetry(true)), 'duplicate-tool-call');
    expect(f?.message).toBe('tools/call send_email with rpc id 7 was executed twice in S1: at 2026-11-09T10:00:01.020Z and again at 2026-11-09T10:00:05.050Z');
    expect(evidenceLines(f!)).toEqual([3, 4]);
    expect(ruleOf('duplicate-tool-call').explanation.fitted?.(f!.message)).toBeUndefined();
  });

  // The proxy retries upstream after a 503 (the first node died mid-call): its first line's span covers the retry's
  // execution on the next node, so both lines fold into that one execution.
  const retriedUpstream = (firstStatus: number, firstExecuted: boolean) => [
    created('S1'),
    ...(firstExecuted ? [call(1100, 'S1', '7', { node: 'a' })] : []),
    { ...proxyPost(1000, '7', 5000), status: firstStatus },
    proxyPost(6020, '7', 1100),
    call(6050, 'S1', '7', { node: 'b' }),
  ];

  it('is not knowable where the proxy sent a call upstream again after a 5xx and the servers logged one execution', async () => {
    const report = await analyzeLines(retriedUpstream(503, false));
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([
      {
        rule: 'duplicate-tool-call',
        session: 'S1',
        reason: `tools/call send_email (rpc id 7) was sent upstream 2 times by the proxy (503 at ${at(1000)}, then 200 at ${at(6020)}), and the servers logged 1 execution of it: the attempt that failed with 503 after 5 s left no server record, so whether it ran the tool before failing (the call then executed twice) is not in the server logs`,
      },
    ]);
  });

  it('near miss: no such question where the failed attempt\'s execution is logged (a finding), or no attempt failed', async () => {
    const logged = await analyzeLines(retriedUpstream(503, true));
    expect(findingsOf(logged, 'duplicate-tool-call')).toHaveLength(1);
    expect(logged.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([]);
    const noFailure = await analyzeLines(retriedUpstream(200, false));
    expect(noFailure.not_knowable.filter((n) => n.rule === 'duplicate-tool-call' && n.reason.includes('sent upstream'))).toEqual([]);
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

  // A client that lost its session re-initializes: a session running since before the end is another client's.
  const endedThenCalledIn = (began: number) => [
    created('S1'),
    created('S3', began),
    call(1000, 'S1', '7'),
    { ts: at(2000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' },
    call(4000, 'S3', '2'),
  ];

  it('flags a retry after the first session ended, made in a session created since', async () => {
    const found = findingsOf(await analyzeLines(endedThenCalledIn(3000)), 'duplicate-tool-call');
    expect(found.map((f) => [f.session, evidenceLines(f)])).toEqual([['S3', [3, 4, 5]]]);
  });

  it('near miss: the first session ended, and the call came again in a session running since before', async () => {
    expect(findingsOf(await analyzeLines(endedThenCalledIn(500)), 'duplicate-tool-call')).toEqual([]);
  });

  // The client that lost the session re-initializes once: a service account's later jobs repeat the call, each in a
  // session of its own, and are not the same call again.
  it('takes only the first call from a session begun since the end for its retry', async () => {
    const found = findingsOf(
      await analyzeLines([...endedThenCalledIn(3000), created('S4', 2500), created('S5', 2600), call(5000, 'S4', '1'), call(6000, 'S5', '1')]),
      'duplicate-tool-call',
    );
    expect(found.map((f) => f.session)).toEqual(['S3']);
  });

  // A client that had the first execution's answer before it called again made no retry: the same call is a new one.
  const answeredThenEnded = (attached: boolean) => [
    created('S1'),
    call(1000, 'S1', '7'),
    { ts: at(1000), kind: 'stream.opened', session: 'S1', stream: 'p7', via: 'post' },
    { ts: at(1200), kind: 'event.sent', session: 'S1', stream: 'p7', event_id: 'e1', rpc_kind: 'response', rpc_id: '7', ...(attached ? {} : { attached: false }) },
    { ts: at(2000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' },
    call(4000, 'S3', '2', { principal: 'alice' }),
  ];

  it('near miss: the first execution answered the client before its session ended', async () => {
    const report = await analyzeLines(answeredThenEnded(true));
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('flags the retry where that answer was only stored for replay, never delivered', async () => {
    const report = await analyzeLines(answeredThenEnded(false));
    expect(findingsOf(report, 'duplicate-tool-call').map((f) => f.message)).toEqual([expect.stringContaining('after S1 ended')]);
  });

  it('near miss: answered before a POST of the principal got 404', async () => {
    const report = await analyzeLines([
      created('S1'),
      call(1000, 'S1', '7'),
      { ts: at(1200), kind: 'event.sent', session: 'S1', stream: 'p7', event_id: 'e1', rpc_kind: 'response', rpc_id: '7' },
      call(2000, 'S1', '8', { tool: 'list_files', status: 404, principal: 'alice' }),
      created('S2', 3000),
      call(4000, 'S2', '1'),
    ]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('flags a retry in a new session the principal moved to, leaving the first', async () => {
    const report = await analyzeLines([created('S1'), call(1000, 'S1', '7'), created('S2', 3000), call(4000, 'S2', '1')]);
    const [f, ...rest] = findingsOf(report, 'duplicate-tool-call');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('a new session S2 was created for alice');
    expect(evidenceLines(f!)).toEqual([2, 3, 4]);
  });

  // The session a principal left the first for is where its client went; a later session of a principal that
  // creates them all the time (a CI service account) is another client's.
  it('near miss: the call came again in a session created after the one the principal moved to', async () => {
    const report = await analyzeLines([created('S1'), call(1000, 'S1', '7'), created('S2', 3000), created('S3', 3500), call(4000, 'S3', '1')]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  // A principal running several sessions at once (a CI service account): a session created for it does not
  // replace one it goes on using.
  it('near miss: a new session of the principal while the first goes on', async () => {
    const parallel = [created('S1'), call(1000, 'S1', '7'), created('S2', 3000)];
    const sameSession = await analyzeLines([...parallel, call(4000, 'S1', '8')]);
    expect(findingsOf(sameSession, 'duplicate-tool-call')).toEqual([]);
    const firstStillUsed = await analyzeLines([...parallel, call(4000, 'S2', '1'), call(5000, 'S1', '9', { tool: 'list_files' })]);
    expect(findingsOf(firstStillUsed, 'duplicate-tool-call')).toEqual([]);
    // S1 goes quiet once S2 is created, but the call comes again in S0, a session running since before
    const inAnotherRunning = await analyzeLines([created('S0'), created('S1', 10), call(1000, 'S1', '7'), created('S2', 3000), call(4000, 'S0', '1')]);
    expect(findingsOf(inAnotherRunning, 'duplicate-tool-call')).toEqual([]);
    const statelessCalls = await analyzeLines([
      { ts: at(1000), kind: 'call', rpc_id: '1', method: 'tools/call', tool: 'send_email', args_hash: 'h1', status: 200, principal: 'alice', protocol_version: '2026-07-28' },
      created('S2', 3000),
      { ts: at(4000), kind: 'call', rpc_id: '2', method: 'tools/call', tool: 'send_email', args_hash: 'h1', status: 200, principal: 'alice', protocol_version: '2026-07-28' },
    ]);
    expect(findingsOf(statelessCalls, 'duplicate-tool-call')).toEqual([]);
  });

  // A new session the principal moved to comes first, and counts only for a retry made in a session created
  // since; a 404 after it counts for every later execution, and must not be hidden behind it.
  const leftThen404 = (notFoundMs: number) => [
    created('S0'), created('S1', 10), created('SX', 20),
    call(1000, 'S1', '7'),
    call(1200, 'SX', '3'),
    created('S3', 1300),
    { ts: at(notFoundMs), kind: 'request.answered', session: 'S1', request_id: 'r5', status: 404 },
  ];

  it('flags a retry after a 404 that came after a new session of the principal', async () => {
    const report = await analyzeLines([...leftThen404(1500), call(2000, 'S0', '1')]);
    const [f, ...rest] = findingsOf(report, 'duplicate-tool-call');
    expect(rest).toEqual([]);
    expect(f?.session).toBe('S0');
    expect(f?.message).toContain('in SX (rpc id 3) at 2026-11-09T10:00:01.200Z, and again in S0 (rpc id 1) after a POST of alice got 404 at 2026-11-09T10:00:01.500Z: a retry');
    expect(evidenceLines(f!)).toEqual([5, 7, 8]);
  });

  it('flags a retry of an older execution after a 404, where the nearer one was only left for a new session', async () => {
    const report = await analyzeLines([
      created('S0'), created('S1', 10), created('SX', 20),
      call(1000, 'S1', '7'),
      { ts: at(1100), kind: 'request.answered', session: 'S1', request_id: 'r5', status: 404 },
      call(1200, 'SX', '3'),
      created('S3', 1300),
      call(2000, 'S0', '1'),
    ]);
    const found = findingsOf(report, 'duplicate-tool-call');
    expect(found.map((f) => f.session)).toEqual(['SX', 'S0']);
    expect(found[1]?.message).toContain('in S1 (rpc id 7) at 2026-11-09T10:00:01.000Z, and again in S0 (rpc id 1) after a POST of alice got 404 at 2026-11-09T10:00:01.100Z');
  });

  it('near miss: the 404 came after the call, which the new session did not replace', async () => {
    const report = await analyzeLines([...leftThen404(2500), call(2000, 'S0', '1')]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
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

// rules.md v2, third clause: the first execution's response stream closed before its
// response was delivered, and the client re-issued the call (since 2026-07-28 under a new id).
describe('duplicate-tool-call after a broken response stream', () => {
  const STATELESS = '2026-07-28';
  const sessionless = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), protocol_version: STATELESS, ...fields });
  const statelessCall = (ms: number, rpcId: string, extra: Record<string, unknown> = {}) =>
    sessionless(ms, { kind: 'call', rpc_id: rpcId, method: 'tools/call', tool: 'send_email', args_hash: 'h1', status: 200, principal: 'alice', conn: `c${rpcId}`, ...extra });
  const postStream = (ms: number, stream: string, conn: string) => sessionless(ms, { kind: 'stream.opened', stream, via: 'post', conn });
  const broke = (ms: number, stream: string) => sessionless(ms, { kind: 'stream.closed', stream, reason: 'error' });

  it('flags a call re-issued without a session after its POST stream broke', async () => {
    const report = await analyzeLines([
      postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), broke(2000, 'p1'),
      postStream(3000, 'p2', 'c2'), statelessCall(3000, '2'),
      sessionless(3500, { kind: 'event.sent', stream: 'p2', event_id: 'x1', rpc_kind: 'response', rpc_id: '2' }),
    ]);
    expect(report.summary.rejected_lines).toBe(0);
    const [f, ...rest] = findingsOf(report, 'duplicate-tool-call');
    expect(rest).toEqual([]);
    expect(f?.session).toBeNull();
    expect(f?.message).toBe(
      'tools/call send_email with the same arguments was executed twice for alice within 2 s: without a session (rpc id 1) at 2026-11-09T10:00:01.000Z, ' +
        'and again without a session (rpc id 2) after its response stream p1 closed at 2026-11-09T10:00:02.000Z before the response was delivered: a retry re-executed it ' +
        '(at protocol 2026-07-28 a client whose response stream broke re-issues the call under a new id)',
    );
    // 2026-07-28: no session and a new id, so the advice is cancellation and idempotency, not dedupe by id in a session
    const advice = ruleOf('duplicate-tool-call').explanation.fitted?.(f!.message);
    expect(advice?.shouldHave).toMatch(/^Treat the close of a call's response stream as its cancellation and stop the work/);
    expect(advice?.shouldHave).toContain('idempotency key');
    expect(evidenceLines(f!)).toEqual([2, 3, 5]);
    // near miss for the one below: linked by its conn, the pair is judged, not left open
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([]);
  });

  it('does not flag a repeat after the first call\'s response, logged without an SSE event id (2026-07-28 has none), was delivered', async () => {
    const closed = (ms: number, stream: string) => sessionless(ms, { kind: 'stream.closed', stream, reason: 'server' });
    const idless = sessionless(1100, { kind: 'event.sent', stream: 'p1', rpc_kind: 'response', rpc_id: '1' });
    const lines = (response: LogLine[]) => [postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), ...response, closed(1101, 'p1'), postStream(6000, 'p2', 'c2'), statelessCall(6000, '2')];
    const delivered = await analyzeLines(lines([idless]));
    expect(delivered.summary.rejected_lines).toBe(0);
    expect(findingsOf(delivered, 'duplicate-tool-call')).toEqual([]);
    // near miss: with no response logged, the close came before it
    expect(findingsOf(await analyzeLines(lines([])), 'duplicate-tool-call')).toHaveLength(1);
  });

  it('is not knowable where the first call names no stream, req or conn: which stream carried its response cannot be told', async () => {
    const report = await analyzeLines([
      postStream(1000, 'p1', 'c1'), statelessCall(1000, '1', { conn: undefined }), broke(2000, 'p1'),
      postStream(3000, 'p2', 'c2'), statelessCall(3000, '2', { conn: undefined }),
      sessionless(3500, { kind: 'event.sent', stream: 'p2', event_id: 'x1', rpc_kind: 'response', rpc_id: '2' }),
    ]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-tool-call')).toEqual([
      {
        rule: 'duplicate-tool-call',
        session: null,
        reason: expect.stringContaining('tools/call send_email without a session at 2026-11-09T10:00:01.000Z names no stream, req or conn and no response to it was logged, and alice executed it again 2 s later'),
      },
    ]);
  });

  const V = '2025-11-25';
  const inSession = (lines: Record<string, unknown>[]) => [created('S1'), ...lines.map((l) => ({ session: 'S1', protocol_version: V, ...l }))];

  it('flags a re-issue in the same session, the stream named by the call or by the response stored for replay', async () => {
    const named = await analyzeLines(
      inSession([
        call(1000, 'S1', '7', { stream: 'p7' }),
        { ts: at(1000), kind: 'stream.opened', stream: 'p7', via: 'post' },
        { ts: at(1500), kind: 'stream.closed', stream: 'p7', reason: 'client' },
        call(2000, 'S1', '8'),
      ]),
    );
    expect(findingsOf(named, 'duplicate-tool-call').map((f) => [f.session, evidenceLines(f)])).toEqual([['S1', [2, 4, 5]]]);
    // near miss for the 2026-07-28 wording and advice: a 2025-11-25 session keeps the general ones
    const [legacy] = findingsOf(named, 'duplicate-tool-call');
    expect(legacy!.message).toMatch(/closed at [^ ]+ before the response was delivered: a retry re-executed it$/);
    expect(ruleOf('duplicate-tool-call').explanation.fitted?.(legacy!.message)).toBeUndefined();

    const stored = await analyzeLines(
      inSession([
        call(1000, 'S1', '7'),
        { ts: at(1000), kind: 'stream.opened', stream: 'p7', via: 'post' },
        { ts: at(1500), kind: 'stream.closed', stream: 'p7', reason: 'error' },
        { ts: at(1800), kind: 'event.sent', stream: 'p7', event_id: 'e9', rpc_kind: 'response', rpc_id: '7', attached: false },
        call(2000, 'S1', '8'),
      ]),
    );
    expect(findingsOf(stored, 'duplicate-tool-call').map((f) => f.message)).toEqual([expect.stringContaining('its response stream p7 closed at')]);
  });

  // A call that logs neither req nor conn: its POST stream is the one its node opens next to it, on the side the
  // node's answered calls show, with no other call of the session in between.
  const opened = (ms: number, stream: string) => ({ ts: at(ms), kind: 'stream.opened', stream, via: 'post' });
  const answered = (ms: number, stream: string, rpcId: string) => ({ ts: at(ms), kind: 'event.sent', stream, event_id: `r${rpcId}`, rpc_kind: 'response', rpc_id: rpcId });
  const lookup = (ms: number, rpcId: string) => call(ms, 'S1', rpcId, { tool: 'lookup', args_hash: `q${rpcId}` });
  const brokeIn = (ms: number, stream: string) => ({ ts: at(ms), kind: 'stream.closed', stream, reason: 'error' });

  it('flags a re-issue whose first call named no stream, on a node that opens the stream after the call', async () => {
    const report = await analyzeLines(
      inSession([lookup(500, '5'), opened(500, 'p5'), answered(600, 'p5', '5'), call(1000, 'S1', '7'), opened(1000, 'p7'), brokeIn(1400, 'p7'), call(3000, 'S1', '8')]),
    );
    const [f, ...rest] = findingsOf(report, 'duplicate-tool-call');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('after its response stream p7 closed');
    expect(evidenceLines(f!)).toEqual([5, 7, 8]);
  });

  it('flags the same on a node that opens the stream before the call', async () => {
    const report = await analyzeLines(
      inSession([opened(500, 'p5'), lookup(500, '5'), answered(600, 'p5', '5'), opened(1000, 'p7'), call(1000, 'S1', '7'), brokeIn(1400, 'p7'), call(3000, 'S1', '8')]),
    );
    expect(findingsOf(report, 'duplicate-tool-call').map((f) => f.message)).toEqual([expect.stringContaining('after its response stream p7 closed')]);
  });

  it('near miss: another call of the session came between the call and the stream that broke', async () => {
    const report = await analyzeLines(
      inSession([lookup(500, '5'), opened(500, 'p5'), answered(600, 'p5', '5'), call(1000, 'S1', '7'), lookup(1000, '9'), opened(1000, 'p9'), brokeIn(1400, 'p9'), call(3000, 'S1', '8')]),
    );
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('near miss: the response was delivered before the stream closed', async () => {
    const report = await analyzeLines([
      postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'),
      sessionless(1500, { kind: 'event.sent', stream: 'p1', event_id: 'x1', rpc_kind: 'response', rpc_id: '1' }),
      broke(2000, 'p1'), statelessCall(3000, '2'),
    ]);
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('near miss: the client resumed the broken stream and got its response replayed before calling again', async () => {
    const report = await analyzeLines(
      inSession([
        call(1000, 'S1', '7'),
        { ts: at(1000), kind: 'stream.opened', stream: 'p7', via: 'post' },
        { ts: at(1001), kind: 'event.sent', stream: 'p7', event_id: 'e0', priming: true },
        { ts: at(1002), kind: 'stream.closed', stream: 'p7', reason: 'poll', retry_ms: 1000 },
        { ts: at(1500), kind: 'event.sent', stream: 'p7', event_id: 'e1', rpc_kind: 'response', rpc_id: '7', attached: false },
        { ts: at(2002), kind: 'upgrade', last_event_id: 'e0', stream: 'p7', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, first_replayed: 'e1' },
        call(9000, 'S1', '8'),
      ]),
    );
    expect(findingsOf(report, 'duplicate-tool-call')).toEqual([]);
  });

  it('near miss: another stream broke, the re-issue came after the window, was deduplicated, or came from another principal', async () => {
    const variants: [string, ReturnType<typeof sessionless>[]][] = [
      ['another stream', [postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), postStream(1200, 'p9', 'c9'), broke(2000, 'p9'), statelessCall(3000, '2')]],
      ['after the window', [postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), broke(2000, 'p1'), statelessCall(62_000, '2')]],
      ['deduplicated', [postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), broke(2000, 'p1'), statelessCall(3000, '2', { executed: false })]],
      ['another principal', [postStream(1000, 'p1', 'c1'), statelessCall(1000, '1'), broke(2000, 'p1'), statelessCall(3000, '2', { principal: 'bob' })]],
    ];
    for (const [what, lines] of variants) {
      const report = await analyzeLines(lines);
      expect(report.summary.rejected_lines, what).toBe(0);
      expect(findingsOf(report, 'duplicate-tool-call'), what).toEqual([]);
    }
  });
});
