import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'resume-after-end';

const created = (ms = 0) => ({ ts: at(ms), kind: 'session.created', session: 'S1' });
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const upgrade = (ms: number, fields: Record<string, unknown>) => ({ ts: at(ms), kind: 'upgrade', session: 'S1', new_stream: `n${ms}`, status: 200, replayed: 0, ...fields });

describe('resume-after-end', () => {
  it('flags a resumption accepted after the session was terminated, even though its log was kept', async () => {
    const report = await analyzeLines([
      created(), // 1
      sent(1000, 5), // 2
      { ts: at(2000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' }, // 3
      upgrade(3000, { decision: 'resume', last_event_id: 5, stream: 'g1' }), // 4
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event 5 (status 200) although it was terminated (client_delete)');
    expect(evidenceLines(f!)).toEqual([3, 4]);
  });

  it('flags an attach after an eviction that kept the event log', async () => {
    const report = await analyzeLines([
      created(), // 1
      { ts: at(2000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout', log_evicted: false }, // 2
      upgrade(3000, { decision: 'attach', last_event_id: null }), // 3
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('attached to S1 (status 200) although it was evicted (idle_timeout)');
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  it('is not hidden by a re-mint the server logged in the same millisecond, just before accepting the resume', async () => {
    const report = await analyzeLines([
      created(), // 1
      sent(1000, 7), // 2
      { ts: at(31_000), kind: 'session.evicted', session: 'S1' }, // 3
      created(46_000), // 4: the resume handler minted S1 again to answer it
      upgrade(46_000, { decision: 'resume', last_event_id: 7, stream: 'g1' }), // 5
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('resumed S1 from event 7 (status 200) although it was evicted');
    expect(evidenceLines(f!)).toEqual([3, 5]);
  });

  // A 404 for the id since the end makes it unknown (silent-fork's reading); it does not revive the session.
  const notFound = {
    upgrade: (ms: number) => upgrade(ms, { decision: 'reject', status: 404, last_event_id: 5, stream: 'g1', replayed: undefined }),
    call: (ms: number) => ({ ts: at(ms), kind: 'call', session: 'S1', rpc_id: 7, method: 'tools/call', tool: 'x', status: 404 }),
    answered: (ms: number) => ({ ts: at(ms), kind: 'request.answered', session: 'S1', request_id: 's-1', status: 404 }),
    proxy: (ms: number) => ({ ts: at(ms), kind: 'http', method: 'POST', path: '/mcp', status: 404, req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} }),
  };

  it('still flags a resume or an attach of an ended session after a 404 for its id, citing the end', async () => {
    for (const [how, line] of Object.entries(notFound)) {
      const report = await analyzeLines([
        created(), // 1
        sent(1000, 5), // 2
        { ts: at(2000), kind: 'session.terminated', session: 'S1', reason: 'client_delete' }, // 3
        line(2500), // 4
        upgrade(3000, { decision: 'attach', last_event_id: null }), // 5
        upgrade(4000, { decision: 'resume', last_event_id: 5, stream: 'g1' }), // 6
      ]);
      const found = findingsOf(report, RULE);
      expect(found.map((f) => evidenceLines(f)), how).toEqual([[3, 5], [3, 6]]);
      expect(found[1]!.message, how).toBe(
        `resumed S1 from event 5 (status 200) although it was terminated (client_delete) at ${at(2000)} (and answered 404 since, at ${at(2500)}): an ended session is no resumption source`,
      );
    }
  });

  it('still flags an ended session after a 404 when the resume handler re-minted the id just before accepting', async () => {
    const report = await analyzeLines([
      created(), // 1
      { ts: at(2000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' }, // 2
      notFound.call(2500), // 3
      created(4000), // 4: minted again to answer the resume
      upgrade(4000, { decision: 'resume', last_event_id: 5, stream: 'g1' }), // 5
    ]);
    expect(findingsOf(report, RULE).map((f) => evidenceLines(f))).toEqual([[2, 5]]);
  });

  it('near miss: a 404 for a session the log never ended, or ended and created again before the 404, is no end', async () => {
    const never = await analyzeLines([created(), sent(1000, 5), notFound.call(2500), upgrade(3000, { decision: 'attach', last_event_id: null })]);
    expect(findingsOf(never, RULE)).toEqual([]);
    const recreated = await analyzeLines([
      created(),
      { ts: at(1000), kind: 'session.terminated', session: 'S1' },
      created(2000),
      notFound.call(2500),
      upgrade(3000, { decision: 'attach', last_event_id: null }),
    ]);
    expect(findingsOf(recreated, RULE)).toEqual([]);
  });

  it('does not flag a session created again after its end, a rejected resume, or a fresh answer', async () => {
    const report = await analyzeLines([
      created(),
      { ts: at(1000), kind: 'session.terminated', session: 'S1' },
      upgrade(1500, { decision: 'reject', status: 404, last_event_id: 5, reason: 'session_not_found' }),
      upgrade(1600, { decision: 'fresh', last_event_id: 5, new_session: 'S2', reset_signalled: true }),
      created(2000), // the id minted again: a live session
      upgrade(3000, { decision: 'attach', last_event_id: null }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('dates an end the proxy and the server both logged (one req) by the server\'s record, not the proxy\'s arrival', async () => {
    const lines = [
      created(), // 1
      sent(1000, 1), // 2
      upgrade(3048, { last_event_id: 1, stream: 'g1', decision: 'resume' }), // 3
      { ts: at(3049), kind: 'session.terminated', session: 'S1', reason: 'client_delete', req: 'r-9' }, // 4
      { ts: at(3047), kind: 'http', method: 'DELETE', path: '/mcp', status: 200, duration_ms: 3, req: 'r-9', req_headers: { 'mcp-session-id': 'S1' }, resp_headers: {} }, // 5
    ];
    expect(findingsOf(await analyzeLines(lines), RULE)).toEqual([]);
    // near miss: a resume after the server's record of the end is flagged, citing it
    const [f] = findingsOf(await analyzeLines([...lines, upgrade(3100, { last_event_id: 1, stream: 'n3048', decision: 'resume' })]), RULE);
    expect(evidenceLines(f!)).toEqual([4, 6]);
  });

  it('sees a DELETE a proxy logged as the end, and is not knowable where only evictions could have ended it', async () => {
    const http = (ms: number, method: string, headers: Record<string, string>) => ({
      ts: at(ms), kind: 'http', method, path: '/mcp', status: method === 'DELETE' ? 204 : 200, req_headers: headers,
      resp_headers: method === 'GET' ? { 'content-type': 'text/event-stream' } : {},
    });
    const report = await analyzeLines([
      http(0, 'GET', { 'mcp-session-id': 'P1' }), // 1
      http(1000, 'DELETE', { 'mcp-session-id': 'P1' }), // 2
      http(2000, 'GET', { 'mcp-session-id': 'P1', 'last-event-id': '4' }), // 3
      http(3000, 'GET', { 'mcp-session-id': 'P2' }), // 4
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('P1');
    expect(f!.message).toContain('a DELETE was answered 2xx');
    expect(evidenceLines(f!)).toEqual([2, 3]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.session)).toEqual(['P1', 'P2']); // P1's first attach, before the DELETE, and P2
    expect(nk[0]!.reason).toContain('proxy log only');
  });

  // mcp-b's clock runs behind: the resume is logged before the creation mcp-a logs `after` ms later.
  const createdJustAfter = (after: number, createdOn: string) => [
    { ...upgrade(5000, { decision: 'resume', last_event_id: 1, stream: 'g1' }), node: 'mcp-b' },
    { ...created(5000 + after), node: createdOn },
    { ...sent(5000 + after + 100, 1), node: createdOn },
  ];

  it('takes a creation another node logs within the clock-skew allowance after the resume for one before it', async () => {
    const report = await analyzeLines(createdJustAfter(700, 'mcp-a'));
    expect(report.not_knowable.filter((n) => ['resume-after-end', 'silent-fork'].includes(n.rule))).toEqual([]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'silent-fork')).toEqual([]);
  });

  it('near miss: the same node\'s creation after the resume, or one past the allowance, leaves the creation unseen', async () => {
    for (const lines of [createdJustAfter(700, 'mcp-b'), createdJustAfter(10_001, 'mcp-a')]) {
      const nk = (await analyzeLines(lines)).not_knowable.filter((n) => n.rule === RULE);
      expect(nk.map((n) => n.reason)).toEqual(['the log holds no creation of S1: an end before the log begins cannot be seen']);
    }
  });
});
