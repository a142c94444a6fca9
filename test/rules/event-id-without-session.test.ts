import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';
import { ruleOf } from '../../src/detect/rules/index.js';

const RULE = 'event-id-without-session';

const fitted = (message: string) => ruleOf(RULE).explanation.fitted?.(message);

const upgrade = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind: 'upgrade', session: null, new_stream: 'g9', ...fields });

describe('event-id-without-session', () => {
  it('flags an accepted Last-Event-ID without Mcp-Session-Id; the finding names no session', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(10), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 5 },
      upgrade(1000, { last_event_id: 5, decision: 'resume', status: 200, replayed: 3 }), // 3
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBeNull();
    expect(f!.message).toContain('carrying Last-Event-ID 5 but no Mcp-Session-Id');
    expect(evidenceLines(f!)).toEqual([3]);
  });

  it('says the cursor was ignored, not resolved against a global log, where the upgrade replayed nothing', async () => {
    const report = await analyzeLines([upgrade(1000, { last_event_id: 'e5', decision: 'attach', status: 200, replayed: 0, node: 'vm/1' })]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe(
      'accepted an attach (status 200 on node vm/1) carrying Last-Event-ID e5 but no Mcp-Session-Id, and ignored the cursor (replayed nothing): ' +
        'the 2xx tells the client its position was honoured, so it cannot tell its cursor was dropped',
    );
    expect(f!.message).not.toContain('global log');
    expect(fitted(f!.message)?.whyItBreaks).toContain('accepted the cursor and replayed nothing');
    expect(evidenceLines(f!)).toEqual([1]);
  });

  it('near miss: a replay named by first_replayed or replayed_ids with a zero count, or a count that is absent, keeps the global-log message', async () => {
    const report = await analyzeLines([
      upgrade(1000, { last_event_id: 'e5', decision: 'resume', status: 200, replayed: 0, first_replayed: 'e6' }),
      upgrade(2000, { last_event_id: 'e5', decision: 'resume', status: 200, replayed: 0, replayed_ids: ['e6'] }),
      upgrade(3000, { last_event_id: 'e5', decision: 'attach', status: 200 }),
    ]);
    const found = findingsOf(report, RULE);
    expect(found).toHaveLength(3);
    for (const f of found) {
      expect(f.message).toContain('the event id can only have been resolved against a global log');
      expect(fitted(f.message)).toBeUndefined();
    }
  });

  it('flags what a proxy saw: a GET with last-event-id and no session header answered with an event stream', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'Last-Event-ID': '12' }, resp_headers: { 'Content-Type': 'text/event-stream' } },
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('Last-Event-ID 12');
    expect(evidenceLines(f!)).toEqual([1]);
  });

  // 2026-07-28 has no sessions and no resumption: the server ignores a stale Last-Event-ID on a POST, and its
  // answer is the call's own stream. A proxy cannot tell that from a replay, so it is not taken for a resume.
  const statelessPost = (version: string, method = 'POST') => ({
    ts: at(0), kind: 'http', method, path: '/mcp', status: 200, node: 'edge', principal: 'bob',
    req_headers: { 'mcp-protocol-version': version, 'last-event-id': '7', 'content-type': 'application/json' },
    resp_headers: { 'content-type': 'text/event-stream' }, rpc_kind: 'request', rpc_method: 'tools/call', rpc_id: 3, sse_event_ids: ['1'],
  });

  it('near miss: a proxy line of a 2026-07-28 POST carrying a stale Last-Event-ID is the call, not a resume', async () => {
    const report = await analyzeLines([statelessPost('2026-07-28')]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.findings).toEqual([]);
  });

  it('still flags the same POST at 2025-11-25, and a GET at 2026-07-28 answered with a stream', async () => {
    expect(findingsOf(await analyzeLines([statelessPost('2025-11-25')]), RULE).map((f) => evidenceLines(f))).toEqual([[1]]);
    expect(findingsOf(await analyzeLines([statelessPost('2026-07-28', 'GET')]), RULE).map((f) => evidenceLines(f))).toEqual([[1]]);
  });

  // 2026-07-28: no request has a session, and the header must be ignored (Backward Compatibility), not refused.
  const resumedAt = (version: string) => upgrade(1000, { last_event_id: 'r1-1', decision: 'resume', status: 200, replayed: 1, protocol_version: version });

  it('at 2026-07-28 blames the resumption, not the missing session, and advises ignoring the header', async () => {
    const [f] = findingsOf(await analyzeLines([resumedAt('2026-07-28')]), RULE);
    expect(f!.message).toContain('carrying Last-Event-ID r1-1 at protocol 2026-07-28: a request of that revision has no Mcp-Session-Id by design, and the fault is the resumption');
    expect(f!.message).not.toContain('but no Mcp-Session-Id');
    const advice = fitted(f!.message)!;
    expect(advice.shouldHave).toContain('Ignore Last-Event-ID on a request at 2026-07-28 or later');
    expect(advice.shouldHave).not.toMatch(/initializes a session first/);
  });

  it('near miss: at 2025-11-25 the same request keeps the general message and the advice to reject it', async () => {
    const [f] = findingsOf(await analyzeLines([resumedAt('2025-11-25')]), RULE);
    expect(f!.message).toContain('carrying Last-Event-ID r1-1 but no Mcp-Session-Id');
    expect(fitted(f!.message)).toBeUndefined();
    expect(ruleOf(RULE).explanation.shouldHave).toMatch(/^Reject a Last-Event-ID that arrives without Mcp-Session-Id \(400 or 404\)/);
  });

  it('does not flag a rejected request, a request without Last-Event-ID, or a fresh session answer', async () => {
    const report = await analyzeLines([
      upgrade(0, { last_event_id: 5, decision: 'reject', status: 400, reason: 'event_id_without_session' }),
      upgrade(100, { last_event_id: null, decision: 'fresh', status: 200, new_session: 'S3' }),
      // fresh answers are judged by silent-fork and silent-reset only
      upgrade(200, { last_event_id: 5, decision: 'fresh', status: 200, new_session: 'S4', reset_signalled: true }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });
});

describe('event-id-without-session: the Last-Event-ID is what is judged', () => {
  const sessionless = (lastEventId: number | null) => [
    { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' },
    upgrade(1000, { last_event_id: lastEventId, decision: 'attach', status: 200, replayed: 0, reemitted: 0 }),
  ];

  it('does not flag an accepted attach that carries neither Mcp-Session-Id nor Last-Event-ID', async () => {
    expect(findingsOf(await analyzeLines(sessionless(null)), RULE)).toEqual([]);
  });

  it('near miss: the same attach carrying Last-Event-ID 5 is flagged', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(sessionless(5)), RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('carrying Last-Event-ID 5 but no Mcp-Session-Id');
    expect(evidenceLines(f!)).toEqual([2]);
  });
});
