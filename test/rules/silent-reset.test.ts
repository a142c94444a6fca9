import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'silent-reset';

const created = { ts: at(0), kind: 'session.created', session: 'S1', node: 'a' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id, node: 'a' });
const fresh = (ms: number, fields: Record<string, unknown>) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: 5, new_stream: 'g2', decision: 'fresh', status: 200, node: 'a', ...fields,
});

describe('silent-reset', () => {
  it('flags a live session whose evicted position was served fresh without a new id or a reset signal', async () => {
    const report = await analyzeLines([
      created, // 1
      sent(1000, 5), // 2
      sent(1100, 6), // 3
      { ts: at(1500), kind: 'buffer.trimmed', session: 'S1', oldest_retained: 6 }, // 4: session-wide trim
      fresh(2000, {}), // 5
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('S1 was live on node a, but a request with Last-Event-ID 5 served fresh with no new session id and no reset signal');
    expect(f!.message).toContain('the buffer had been trimmed to 6');
    expect(evidenceLines(f!)).toEqual([2, 4, 5]);
  });

  it('flags an id the live session never sent, served fresh under the same id with a reset but no new id', async () => {
    const report = await analyzeLines([created, sent(1000, 1), fresh(2000, { last_event_id: 40, new_session: 'S1', reset_signalled: true })]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('as a re-minted S1 with no new session id');
    expect(f!.message).toContain('S1 never sent it since its creation');
    expect(evidenceLines(f!)).toEqual([1, 3]);
  });

  it('does not flag a told reset, nor a fresh answer to a position that was still resumable', async () => {
    const report = await analyzeLines([
      created,
      sent(1000, 5),
      sent(1100, 6),
      { ts: at(1500), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 5 }, // 5 still retained
      fresh(2000, {}), // resumable, served fresh: the engine cross-check's business, not a silent reset
      { ts: at(2500), kind: 'session.state_changed', session: 'S1', aspect: 'capabilities' },
      fresh(3000, { new_session: 'S2', reset_signalled: true }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('is not knowable for a proxy-only session: whether the position was resumable could not be seen', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: {}, resp_headers: { 'mcp-session-id': 'P1' } },
      {
        ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200,
        req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '5' }, resp_headers: { 'mcp-session-id': 'P2', 'content-type': 'text/event-stream' },
      },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk.map((n) => n.session)).toEqual(['P1']);
    expect(nk[0]!.reason).toContain('proxy log only');
  });
});

describe('silent-reset on a log that starts mid-session', () => {
  it('is not knowable (and no silent-fork is claimed either) when the creation is not in the log', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
      { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 },
      { ts: at(200), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 5 },
      { ts: at(300), kind: 'upgrade', session: 'S1', last_event_id: 1, decision: 'fresh', status: 200, new_session: 'S1' },
    ]);
    expect(findingsOf(report, 'silent-reset')).toEqual([]);
    expect(findingsOf(report, 'silent-fork')).toEqual([]);
    const rules = report.not_knowable.filter((n) => n.session === 'S1').map((n) => n.rule);
    expect(rules).toContain('silent-reset');
    expect(rules).toContain('silent-fork');
  });
  it('does not flag a 2026-07-28 request presenting the live session and an unknown Last-Event-ID, served fresh unminted', async () => {
    const report = await analyzeLines([created, sent(1000, 1), fresh(2000, { last_event_id: 99, reason: 'stateless_request', protocol_version: '2026-07-28' })]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('still flags that request when its own version is 2025-11-25 (the session is 2026-07-28 only by a later line)', async () => {
    const report = await analyzeLines([
      created,
      sent(1000, 1),
      fresh(2000, { last_event_id: 99, protocol_version: '2025-11-25' }),
      { ts: at(3000), kind: 'call', session: 'S1', rpc_id: 1, method: 'tools/list', status: 200, protocol_version: '2026-07-28' },
    ]);
    expect(findingsOf(report, RULE)).toHaveLength(1);
  });
});
