// whatif --protocol: had these clients spoken another revision, which calls would a broken
// response stream have lost, and which would the client re-issue and the server run twice?

import { afterEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../src/api.js';
import { renderWhatIfText, whatIf, type WhatIfReport } from '../../src/whatif/index.js';
import { at, workspaceOf, type LogLine } from '../helpers/logs.js';

let ws: Workspace | undefined;
afterEach(() => {
  ws?.db.close();
  ws = undefined;
});

async function stateless(lines: LogLine[]): Promise<WhatIfReport> {
  ws = await workspaceOf(lines);
  return whatIf(ws.db, { change: { protocolVersion: '2026-07-28' } });
}

/** One POST stream per call: opened, the call, a first event, then `middle`, then the response. */
function callOn(session: string, stream: string, rpcId: number, t0: number, middle: LogLine[], response: Record<string, unknown> = {}): LogLine[] {
  return [
    { ts: at(t0), kind: 'stream.opened', session, stream, via: 'post' },
    { ts: at(t0), kind: 'call', session, rpc_id: rpcId, method: 'tools/call', tool: 'charge', args_hash: `h${rpcId}`, status: 200 },
    { ts: at(t0 + 1), kind: 'event.sent', session, stream, event_id: `${stream}-1`, priming: true },
    ...middle,
    { ts: at(t0 + 500), kind: 'event.sent', session, stream, event_id: `${stream}-2`, rpc_kind: 'response', rpc_id: rpcId, ...response },
  ];
}

const created = (session: string, version?: string): LogLine => ({ ts: at(0), kind: 'session.created', session, ...(version && { protocol_version: version }) });

/** S1 at 2025-11-25: the POST stream of call 7 breaks, its response is stored for replay, a GET resumption brings it (lines 1-8). */
const rescued: LogLine[] = [
  created('S1', '2025-11-25'),
  ...callOn('S1', 'p1', 7, 100, [{ ts: at(200), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'error' }], { attached: false }),
  { ts: at(900), kind: 'upgrade', session: 'S1', last_event_id: 'p1-1', stream: 'p1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, first_replayed: 'p1-2' },
];

/** Every response written live on the stream its request opened. */
const delivered: LogLine[] = [
  created('S2', '2025-11-25'),
  ...callOn('S2', 'p1', 1, 100, []),
  { ts: at(700), kind: 'stream.closed', session: 'S2', stream: 'p1', reason: 'server' },
  ...callOn('S2', 'p2', 2, 1000, []),
  { ts: at(1600), kind: 'stream.closed', session: 'S2', stream: 'p2', reason: 'server' },
];

describe('whatIf --protocol 2026-07-28', () => {
  it('a response a resumption rescued is lost: the client re-issues the call and the tool runs twice', async () => {
    const r = await stateless(rescued);
    expect(r.policy.protocolVersion).toBe('2026-07-28');
    expect(r.calls).toMatchObject({ protocol_version: '2026-07-28', judged: 1, delivered: 0, unjudged: 0 });
    const [s] = r.calls!.sessions;
    expect(s).toMatchObject({ session: 'S1', protocol_version: '2025-11-25', lost: 1, reissued: 1, run_twice: 1, rescued: 1 });
    expect(s!.calls).toEqual([
      {
        rpc_id: '7',
        method: 'tools/call',
        tool: 'charge',
        at: at(100),
        before: 'rescued',
        after: 'lost',
        reissued: true,
        run_twice: true,
        rescued_by: { decision: 'resume', last_event_id: 'p1-1', at: at(900) },
        why: expect.stringMatching(/^p1 was closed \(error\) at .*, before the response p1-2; as logged, the resumption from p1-1 at .* brought it; with protocol 2026-07-28 nothing resumes a stream: the request is lost, and the client re-issues it under a new id, which runs charge again unless it is idempotent$/),
        // the call, the close, the response, the resumption
        evidence: [3, 5, 6, 7].map((line) => ({ file: 'server.ndjson', line })),
      },
    ]);
    expect(r.headline[0]).toBe(
      'with protocol 2026-07-28: 1 client request would have been lost (its response stream broke before the response; 1 rescued today by a resumption); the client re-issues it under a new id, and 1 tool call would run twice unless the tool is idempotent',
    );
  });

  it('also flips the resumption that rescued it: a stateless server refuses the GET', async () => {
    const r = await stateless(rescued);
    expect(r.flips.map((f) => [f.session, f.before.decision, f.after.decision, f.after.status, f.after.reason])).toEqual([['S1', 'resume', 'reject', 405, 'method_not_allowed']]);
    expect(r.headline).toContain('with protocol 2026-07-28: 1 reconnect decision flips (1 resume → reject)');
  });

  it('near miss: every response delivered on its own stream loses nothing', async () => {
    const r = await stateless(delivered);
    expect(r.calls).toEqual({ protocol_version: '2026-07-28', judged: 2, delivered: 2, unjudged: 0, sessions: [] });
    expect(r.headline[0]).toBe('with protocol 2026-07-28: no client request would have been lost: every one of the 2 responses logged came on the stream its request opened');
    expect(r.flips).toEqual([]);
  });

  // Requests without a session (2026-07-28): each call with the response stream it names.
  const V = '2026-07-28';
  const sessionless = (ms: number, fields: Record<string, unknown>): LogLine => ({ ts: at(ms), protocol_version: V, ...fields });
  const statelessCall = (rpcId: number, stream: string | undefined, t0: number, response: Record<string, unknown> | undefined, broke: boolean): LogLine[] => [
    sessionless(t0, { kind: 'call', rpc_id: rpcId, method: 'tools/call', tool: 'charge', status: 200, ...(stream && { stream }) }),
    ...(stream ? [sessionless(t0, { kind: 'stream.opened', stream, via: 'post' })] : []),
    ...(broke && stream ? [sessionless(t0 + 100, { kind: 'stream.closed', stream, reason: 'error' })] : []),
    ...(response ? [sessionless(t0 + 200, { kind: 'event.sent', stream: stream ?? 'px', rpc_kind: 'response', rpc_id: rpcId, ...response })] : []),
  ];

  it('judges the calls without a session too: a broken one is listed, an id-less response delivered live counts', async () => {
    const r = await stateless([
      ...statelessCall(1, 'r1', 100, { event_id: 'r1-2', attached: false }, true),
      ...statelessCall(2, 'r2', 1000, {}, false), // its response carries no event id (2026-07-28 has none)
    ]);
    expect(r.calls).toMatchObject({ judged: 2, delivered: 1, unjudged: 0 });
    const [s, ...rest] = r.calls!.sessions;
    expect(rest).toEqual([]);
    expect(s).toMatchObject({ session: null, protocol_version: V, lost: 1 });
    expect(s!.calls.map((c) => [c.rpc_id, c.before, c.after])).toEqual([['1', 'lost', 'lost']]);
    expect(renderWhatIfText(r)).toContain('  (no session) (logged 2026-07-28): 1 lost');
  });

  it('near miss: a call without a session that names no stream is counted, not judged', async () => {
    const r = await stateless(statelessCall(3, undefined, 100, undefined, false));
    expect(r.calls).toMatchObject({ judged: 0, delivered: 0, unjudged: 1, sessions: [] });
  });

  it('a broken stream nothing resumed is lost as logged too, and only the stateless client re-issues it', async () => {
    const r = await stateless([
      created('S3'),
      ...callOn('S3', 'p1', 4, 100, [{ ts: at(200), kind: 'stream.closed', session: 'S3', stream: 'p1', reason: 'client' }], { attached: false }),
    ]);
    const [s] = r.calls!.sessions;
    expect(s).toMatchObject({ session: 'S3', protocol_version: null, lost: 1, reissued: 1, run_twice: 1, rescued: 0 });
    expect(s!.calls[0]).toMatchObject({ before: 'lost', after: 'lost', rescued_by: null });
    expect(s!.calls[0]!.why).toContain('as logged no resumption brought it either');
    expect(r.headline[0]).toContain('(its response stream broke before the response; 1 lost as logged too)');
  });

  it('a poll close is a break: the stateless revision has no polling, and the why says so', async () => {
    const r = await stateless([
      created('S4', '2025-11-25'),
      ...callOn('S4', 'p1', 9, 100, [{ ts: at(150), kind: 'stream.closed', session: 'S4', stream: 'p1', reason: 'poll', retry_ms: 500 }], { attached: false }),
      { ts: at(700), kind: 'upgrade', session: 'S4', last_event_id: 'p1-1', stream: 'p1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1 },
    ]);
    const why = r.calls!.sessions[0]!.calls[0]!.why;
    expect(why).toContain('the server closed p1 for polling at');
    expect(why).toContain('(2026-07-28 has no polling: counted lost as a stream that broke, since whether a stream held open instead would have lasted to the response is not in the log)');
  });

  it('a deduplicated or non-tool request is re-issued but not run twice; an initialize is not judged', async () => {
    const broken = (rpcId: number, fields: Record<string, unknown>, t0: number): LogLine[] => [
      { ts: at(t0), kind: 'stream.opened', session: 'S5', stream: `p${rpcId}`, via: 'post' },
      { ts: at(t0), kind: 'call', session: 'S5', rpc_id: rpcId, status: 200, ...fields },
      { ts: at(t0 + 1), kind: 'stream.closed', session: 'S5', stream: `p${rpcId}`, reason: 'error' },
      { ts: at(t0 + 2), kind: 'event.sent', session: 'S5', stream: `p${rpcId}`, event_id: `e${rpcId}`, rpc_kind: 'response', rpc_id: rpcId, attached: false },
    ];
    const r = await stateless([
      created('S5'),
      ...broken(0, { method: 'initialize' }, 10),
      ...broken(1, { method: 'tools/call', tool: 'charge', executed: false }, 100),
      ...broken(2, { method: 'resources/read' }, 200),
    ]);
    expect(r.calls!.judged).toBe(2);
    expect(r.calls!.sessions[0]).toMatchObject({ lost: 2, reissued: 2, run_twice: 0 });
    expect(r.headline[0]).toBe(
      'with protocol 2026-07-28: 2 client requests would have been lost (their response stream broke before the response; 2 lost as logged too); the client re-issues them under new ids',
    );
  });

  it('a session logged at 2026-07-28 is judged by it as logged: its illegal resumption rescues nothing', async () => {
    const r = await stateless(rescued.map((l) => (typeof l === 'object' && l.kind === 'session.created' ? { ...l, protocol_version: '2026-07-28' } : l)));
    expect(r.calls!.sessions[0]!.calls[0]).toMatchObject({ before: 'lost', after: 'lost' });
    // The engine already refused that GET as logged: nothing flips.
    expect(r.flips).toEqual([]);
  });

  it('renders a section per session, with each call, its why and its lines', async () => {
    const text = renderWhatIfText(await stateless(rescued));
    expect(text).toContain('client requests whose response stream broke (as logged → with protocol 2026-07-28) (1):\n');
    expect(text).toContain('  S1 (logged 2025-11-25): 1 lost, 1 re-issued, 1 run twice; 1 rescued today\n');
    expect(text).toContain(`    tools/call 7 (charge) at ${at(100)}: rescued → lost, re-issued and run twice\n        why: p1 was closed (error)`);
    expect(text).toContain('        server.ndjson:3, 5, 6, 7\n');
  });

  it('writes no control character a log line carries to the terminal', async () => {
    const r = await stateless(rescued.map((l) => (typeof l === 'object' && 'tool' in l ? { ...l, tool: 'ch\u001b[2Jarge' } : l)));
    const text = renderWhatIfText(r);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('tools/call 7 (ch\\u001b[2Jarge)');
  });

  it('other questions leave the report as it was: no calls, no protocol in the policy', async () => {
    ws = await workspaceOf(rescued);
    const r = await whatIf(ws.db, { change: { fenceGraceMs: 10_000 } });
    expect(r).not.toHaveProperty('calls');
    expect(JSON.parse(JSON.stringify(r.policy))).not.toHaveProperty('protocolVersion');
  });
});

// README, whatif --protocol: the findings table judges each record by the revision it logged, not by --protocol
// (review item 5, case c18): a poll close at a logged 2025-06-18 stays a close in the after-world too.
describe('whatIf --protocol and the findings that depend on the logged revision', () => {
  /** A server request pending on a GET stream the server closed for polling, at the session's logged revision. */
  const polledPending = (version: string): LogLine[] => [
    created('A', version),
    { ts: at(500), kind: 'upgrade', session: 'A', last_event_id: null, new_stream: 'g1', decision: 'attach', status: 200, replayed: 0, reemitted: 0 },
    { ts: at(501), kind: 'stream.opened', session: 'A', stream: 'g1', via: 'get' },
    { ts: at(1000), kind: 'event.sent', session: 'A', stream: 'g1', event_id: 'A-1', rpc_kind: 'request', rpc_id: 's1', method: 'sampling/createMessage' },
    { ts: at(1000), kind: 'request.sent', session: 'A', stream: 'g1', request_id: 's1', method: 'sampling/createMessage', event_id: 'A-1' },
    { ts: at(1100), kind: 'stream.closed', session: 'A', stream: 'g1', reason: 'poll', retry_ms: 500 },
  ];

  it('keeps an orphaned-request of a logged 2025-06-18 poll close under --protocol 2025-11-25', async () => {
    ws = await workspaceOf(polledPending('2025-06-18'));
    const r = await whatIf(ws.db, { change: { protocolVersion: '2025-11-25' } });
    expect([r.before.by_rule['orphaned-request'], r.after.by_rule['orphaned-request']]).toEqual([1, 1]);
    expect(r.disappeared).toEqual([]);
  });

  it('near miss: the same log logged at 2025-11-25 has no orphaned-request in either world', async () => {
    ws = await workspaceOf(polledPending('2025-11-25'));
    const r = await whatIf(ws.db, { change: { protocolVersion: '2025-06-18' } });
    expect([r.before.by_rule['orphaned-request'] ?? 0, r.after.by_rule['orphaned-request'] ?? 0]).toEqual([0, 0]);
  });
});
