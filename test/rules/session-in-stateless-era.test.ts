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

  it('fires on a mint whose session logs the version, and on a proxy response minting Mcp-Session-Id', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S1' },
      { ts: at(0), kind: 'session.created', session: 'S1', protocol_version: '2026-07-28' },
      { ts: at(2), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28' }, resp_headers: { 'mcp-session-id': 'S2', 'content-type': 'application/json' } },
    ]);
    expect(findingsOf(report, RULE).map((f) => [f.session, evidenceLines(f)])).toEqual([
      ['S1', [1, 2]],
      ['S2', [3]],
    ]);
  });

  // Item 1 of the 2026-07-28 migration review: a dual-era client asks for the latest revision it knows,
  // the server answers an earlier one (2025-11-25 lifecycle, Version Negotiation), and "an initialize
  // request selects legacy semantics ... as specified by the negotiated legacy protocol version".
  const initialize = (asked: string, created: string | undefined, later: string | undefined) => [
    { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S4', protocol_version: asked, principal: 'frank' },
    { ts: at(0), kind: 'session.created', session: 'S4', principal: 'frank', ...(created !== undefined && { protocol_version: created }) },
    { ts: at(1000), kind: 'call', session: 'S4', rpc_id: 7, method: 'tools/call', tool: 'charge', args_hash: 'h1', status: 200, principal: 'frank', ...(later !== undefined && { protocol_version: later }) },
  ];

  it.each([
    ['the creation and the later requests log the negotiated version', '2025-11-25', '2025-11-25'],
    ['only the creation logs the negotiated version', '2025-11-25', undefined],
    ['the creation logs the version asked for, the later requests the negotiated one', '2026-07-28', '2025-11-25'],
    ['the negotiated 2025-03-26 is logged on the creation, and its requests carry no header', '2025-03-26', undefined],
  ])('near miss: an initialize that asked for 2026-07-28 and was answered an earlier revision: %s', async (_, created, later) => {
    const report = await analyzeLines(initialize('2026-07-28', created, later));
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
    expect(report.summary.protocol_versions).toEqual({ [later ?? created!]: 1 });
  });

  it('an initialize whose session logs nothing but 2026-07-28 is still judged by it', async () => {
    const report = await analyzeLines(initialize('2026-07-28', '2026-07-28', undefined));
    expect(findingsOf(report, RULE).map((f) => evidenceLines(f))).toEqual([[1, 2]]);
  });

  // Revision audit, item 1: the initialize's minting upgrade logs the revision the client asked for (2026-07-28),
  // the session logs none. 2026-07-28 has no initialize: a session an initialize minted is a legacy session.
  const dualEraLegacySession = (created: string | undefined) => [
    ...initialize('2026-07-28', created, undefined).slice(0, 2),
    { ts: at(500), kind: 'upgrade', session: 'S4', last_event_id: null, new_stream: 'g1', decision: 'attach', status: 200, replayed: 0, reemitted: 0 },
    { ts: at(501), kind: 'stream.opened', session: 'S4', stream: 'g1', via: 'get' },
    { ts: at(1000), kind: 'event.sent', session: 'S4', stream: 'g1', event_id: '1', rpc_kind: 'notification', method: 'notifications/message' },
    { ts: at(1500), kind: 'stream.closed', session: 'S4', stream: 'g1', reason: 'error' },
    { ts: at(2000), kind: 'upgrade', session: 'S4', last_event_id: '1', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 },
  ];

  it('near miss: an initialize that logged the 2026-07-28 it asked for, whose session logs no version, is a legacy session', async () => {
    const mintOnly = await analyzeLines(initialize('2026-07-28', undefined, undefined).slice(0, 2));
    expect(findingsOf(mintOnly, RULE)).toEqual([]);
    expect(mintOnly.summary.protocol_versions).toEqual({ unknown: 1 });
    const report = await analyzeLines(dualEraLegacySession(undefined));
    // Nor does the engine replay judge the initialize at the 2026-07-28 it asked for (a 400 there): no finding at all.
    expect(report.findings.map((f) => f.rule)).toEqual([]);
    expect(mintOnly.findings.map((f) => f.rule)).toEqual([]);
    expect(report.summary.protocol_versions).toEqual({ unknown: 1 });
  });

  it('the same legacy life fires where the server logged its session created at 2026-07-28', async () => {
    const report = await analyzeLines(dualEraLegacySession('2026-07-28'));
    expect(findingsOf(report, RULE).map((f) => evidenceLines(f))).toEqual([[1, 2]]);
    // and the engine replay judges the initialize at its session's 2026-07-28: no initialize there
    expect(findingsOf(report, 'engine-divergence').map((f) => f.message).join('\n')).toContain('initialize_unsupported');
    // the resumption logs no version: the line that shows its session's is cited with it
    const [replay] = findingsOf(report, 'replay-in-stateless-era');
    expect(evidenceLines(replay!)).toEqual([2, 7]);
    expect(replay!.message).toContain("at protocol 2026-07-28 (its session S4's: the request logs none)");
  });

  it('a mint that is no initialize is judged by its own 2026-07-28: a stale resumption reset into a new session, a proxy line of another method', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: 'OLD', last_event_id: '3', decision: 'fresh', status: 200, new_session: 'R1', protocol_version: '2026-07-28' },
      { ts: at(5000), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28' }, resp_headers: { 'mcp-session-id': 'N1', 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'tools/list', rpc_id: 3 },
    ]);
    expect(findingsOf(report, RULE).map((f) => [f.session, evidenceLines(f)])).toEqual([
      ['R1', [1]],
      ['N1', [2]],
    ]);
  });

  it('near miss: a proxy line of an initialize at 2026-07-28 that minted a session says nothing of its revision', async () => {
    const initializeLine = { ts: at(0), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28' }, resp_headers: { 'mcp-session-id': 'L1', 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 0 };
    const report = await analyzeLines([initializeLine]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.summary.protocol_versions).toEqual({ unknown: 1 });
  });

  // Revision audit, item 6: the server's session.created logs the negotiated version; a later header does not override it.
  it("a session's revision is the one its session.created logs, not a later request's header", async () => {
    const report = await analyzeLines(initialize('2025-06-18', '2025-06-18', '2025-11-25'));
    expect(report.summary.protocol_versions).toEqual({ '2025-06-18': 1 });
  });

  // Item 8: a later request at 2026-07-28 that still presents the session (a stale header, which that
  // revision ignores) is not part of it, and says nothing of the revision the session was minted at.
  it('near miss: a session that logs no version of its own does not take a later stateless request’s', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'S14', principal: 'pat' },
      { ts: at(0), kind: 'session.created', session: 'S14', principal: 'pat' },
      { ts: at(1000), kind: 'call', session: 'S14', rpc_id: 1, method: 'tools/list', status: 200, principal: 'pat' },
      { ts: at(5000), kind: 'call', session: 'S14', rpc_id: 2, method: 'tools/list', status: 200, protocol_version: '2026-07-28', principal: 'pat' },
    ]);
    expect(report.findings.filter((f) => f.severity !== 'info').map((f) => f.rule)).toEqual([]);
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
    expect(report.summary.protocol_versions).toEqual({ unknown: 1 });
  });

  it('an echo is judged by its own request: a 2026-07-28 response handing back a 2025-11-25 session’s id fires', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
      { ts: at(1), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-session-id': 'S1' }, resp_headers: { 'mcp-session-id': 'S1', 'content-type': 'application/json' } },
      { ts: at(2), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'S1' }, resp_headers: { 'mcp-session-id': 'S1', 'content-type': 'application/json' } },
    ]);
    expect(findingsOf(report, RULE).map((f) => [f.session, evidenceLines(f)])).toEqual([['S1', [2]]]);
    expect(report.summary.protocol_versions).toEqual({ '2025-11-25': 1 });
  });

  // Item 19: one mint, one finding.
  it('a minting upgrade and the session.created answering it are one finding; mints apart are two', async () => {
    const mint = (ms: number, session: string, node?: string) => [
      { ts: at(ms), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: session, protocol_version: '2026-07-28', ...(node && { node }) },
      { ts: at(ms + 1), kind: 'session.created', session, protocol_version: '2026-07-28', ...(node && { node }) },
    ];
    const report = await analyzeLines([
      ...mint(0, 'NEW-1'),
      // a creation of another node answers no upgrade of this one; nor does one 5 s later
      ...mint(10_000, 'NEW-2', 'a').slice(0, 1),
      { ts: at(10_001), kind: 'session.created', session: 'NEW-2', protocol_version: '2026-07-28', node: 'b' },
      { ts: at(20_000), kind: 'session.created', session: 'NEW-3', protocol_version: '2026-07-28' },
      { ts: at(25_000), kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: 'NEW-3', protocol_version: '2026-07-28' },
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => [f.session, evidenceLines(f)])).toEqual([
      ['NEW-1', [1, 2]],
      ['NEW-2', [3]],
      ['NEW-2', [4]],
      ['NEW-3', [5]],
      ['NEW-3', [6]],
    ]);
    expect(found[0]!.message).toContain('the upgrade minted session NEW-1, and the server created it');
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
