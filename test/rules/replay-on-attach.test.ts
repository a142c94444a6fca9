import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const closed = { ts: at(900), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client' };

describe('replay-on-attach', () => {
  it('flags an attach without Last-Event-ID that replayed past events', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 1),
      sent(200, 2),
      closed,
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', status: 200, replayed: 2, reemitted: 0, cancelled: 0, first_replayed: 1 },
    ]);
    const [f, ...rest] = findingsOf(report, 'replay-on-attach');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.severity).toBe('error');
    expect(f?.message).toContain('S1');
    expect(f?.message).toContain('g2');
    expect(f?.message).toContain('2 past events');
    expect(f?.message).toContain('event 1');
    expect(evidenceLines(f!)).toEqual([6]);
  });

  it('takes the replay from event.replayed records when the counter is absent', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 1),
      closed,
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', status: 200 },
      { ts: at(1001), kind: 'event.replayed', session: 'S1', stream: 'g2', event_id: 1, of_stream: 'g1' },
    ]);
    const [f] = findingsOf(report, 'replay-on-attach');
    expect(f?.message).toContain('event 1');
    expect(evidenceLines(f!)).toEqual([5, 6]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([]);
  });

  it('does not flag a stream resumption that replays, nor an attach that replays nothing', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 1),
      sent(200, 2),
      closed,
      // resume with Last-Event-ID: replaying is its job
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1, reemitted: 0, first_replayed: 2 },
      { ts: at(1100), kind: 'stream.closed', session: 'S1', stream: 'g2' },
      { ts: at(2000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 },
      // a rejected attach replays nothing whatever it logged
      { ts: at(3000), kind: 'upgrade', session: 'S1', last_event_id: null, decision: 'reject', status: 409, replayed: 3 },
    ]);
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([]);
  });

  it('reports an attach without a replayed counter as not knowable, per session', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 1),
      closed,
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', status: 200 },
    ]);
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === 'replay-on-attach');
    expect(nk).toHaveLength(1);
    expect(nk[0]?.session).toBe('S1');
    expect(nk[0]?.reason).toMatch(/no replayed counter/);
  });

  it('says a proxy-only session cannot be judged', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    const nk = report.not_knowable.filter((n) => n.rule === 'replay-on-attach');
    expect(nk).toEqual([{ rule: 'replay-on-attach', session: 'P1', reason: expect.stringMatching(/proxy log only/) }]);
  });

  // A proxy that records SSE ids sees an attach's response carry ids it already saw delivered.
  const proxyGet = (ms: number, ids: number[]) => ({
    ts: at(ms), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1' },
    resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ids,
  });

  it('flags an attach whose response a proxy saw carry ids delivered earlier in the session', async () => {
    const report = await analyzeLines([proxyGet(1000, [1, 2, 3, 4]), proxyGet(8000, [3, 4, 5])]);
    const [f, ...rest] = findingsOf(report, 'replay-on-attach');
    expect(rest).toEqual([]);
    expect(f!.message).toContain('replayed 2 past events starting at event 3 (the proxy saw 3, 4 delivered earlier in the session)');
    expect(evidenceLines(f!)).toEqual([1, 2]);
  });

  it('does not flag an attach whose response carries only ids the proxy had not seen', async () => {
    const report = await analyzeLines([proxyGet(1000, [1, 2]), proxyGet(8000, [3, 4])]);
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
  });
});

describe('replay-on-attach: an attach that logged no status', () => {
  const attach = { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', replayed: 0, reemitted: 0, cancelled: 0 };

  it('is not knowable, saying so: whether it was accepted is not in the log', async () => {
    const report = await analyzeLines([created, opened, sent(100, 1), closed, attach]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([
      { rule: 'replay-on-attach', session: 'S1', reason: `the attach at ${at(1000)} without Last-Event-ID logged no status: whether it was accepted, and then replayed nothing, cannot be told` },
    ]);
  });

  it('near miss: with a 2xx status and a replayed counter it is judged, and nothing is not knowable', async () => {
    const report = await analyzeLines([created, opened, sent(100, 1), closed, { ...attach, status: 200 }]);
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([]);
  });
});

describe('replay-on-attach: every way an upgrade without Last-Event-ID shows a replay', () => {
  const upgrade = (fields: Record<string, unknown>) => ({
    ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', status: 200, reemitted: 0, ...fields,
  });
  const after = (fields: Record<string, unknown>) => analyzeLines([created, opened, sent(100, 1), sent(200, 2), closed, upgrade(fields)]);

  it('flags an upgrade logged as a resume that carries no Last-Event-ID and replayed past events', async () => {
    const [f, ...rest] = findingsOf(await after({ decision: 'resume', replayed: 2, first_replayed: 1 }), 'replay-on-attach');
    expect(rest).toEqual([]);
    expect(f?.severity).toBe('error');
    expect(f?.message).toContain('resume to S1 without Last-Event-ID (new stream g2) replayed 2 past events starting at event 1');
    expect(evidenceLines(f!)).toEqual([6]);
  });

  it('near miss: the same resume without Last-Event-ID that replayed nothing', async () => {
    const report = await after({ decision: 'resume', replayed: 0 });
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([]);
  });

  // log-format.md: an absent counter is unknown, not zero; the ids an upgrade names were replayed.
  it('flags an attach whose replay shows only in replayed_ids, with no replayed counter', async () => {
    const [f, ...rest] = findingsOf(await after({ decision: 'attach', replayed_ids: [1, 2] }), 'replay-on-attach');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('attach to S1 without Last-Event-ID (new stream g2) replayed 2 past events');
  });

  it('flags an attach whose replay shows only in first_replayed, with no replayed counter', async () => {
    const [f, ...rest] = findingsOf(await after({ decision: 'attach', first_replayed: 1 }), 'replay-on-attach');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('attach to S1 without Last-Event-ID (new stream g2) replayed past events starting at event 1');
  });

  it('near miss: an empty replayed_ids beside a zero counter is no replay', async () => {
    const report = await after({ decision: 'attach', replayed: 0, replayed_ids: [] });
    expect(findingsOf(report, 'replay-on-attach')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'replay-on-attach')).toEqual([]);
  });
});
