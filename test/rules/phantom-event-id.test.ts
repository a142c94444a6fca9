import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'phantom-event-id';

const created = (session = 'S1') => ({ ts: at(0), kind: 'session.created', session });
const sent = (ms: number, id: number | string, session = 'S1', stream = 'g1') => ({ ts: at(ms), kind: 'event.sent', session, stream, event_id: id });
const resume = (ms: number, lastEventId: number | string, session = 'S1') => ({
  ts: at(ms),
  kind: 'upgrade',
  session,
  last_event_id: lastEventId,
  new_stream: 'g2',
  decision: 'resume',
  status: 200,
  replayed: 0,
});

describe('phantom-event-id', () => {
  it('flags a resumption from an id never sent, where the log covers the session from its creation', async () => {
    const report = await analyzeLines([created(), sent(1000, 'e1'), sent(1100, 'e2'), resume(2000, 'e9')]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event e9, which no stream of any session ever sent');
    expect(evidenceLines(f!)).toEqual([1, 4]);
  });

  it('flags a numeric id above every id the session sent, even when the log starts mid-session', async () => {
    const report = await analyzeLines([sent(1000, 11), sent(1100, 12), resume(2000, 99)]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('above every id S1 sent (the highest was 12)');
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  it('does not flag ids some stream sent: another stream of the session, or another session', async () => {
    const report = await analyzeLines([
      created(),
      created('S2'),
      sent(1000, 1),
      sent(1100, 2, 'S1', 'p7'), // a POST stream of S1
      sent(1200, 'x5', 'S2'), // sent, but by S2: foreign-event-id, not phantom
      resume(2000, 2),
      resume(2100, 'x5'),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('flags an id no stream had sent by then, though another session sends it a minute later', async () => {
    const report = await analyzeLines([created(), created('S2'), sent(1000, 1), resume(2000, 28461), sent(77_000, 28461, 'S2', 'p9')]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('resumed S1 from event 28461, which no stream of any session had sent by then');
    expect(f!.message).toContain('it was first sent 75 s later, on p9 of S2');
    expect(evidenceLines(f!)).toEqual([1, 4, 5]);
  });

  // a node whose clock runs ahead logs the event after the resumption that names it
  it('does not flag an id first logged within the clock-skew allowance after the resumption', async () => {
    const report = await analyzeLines([created(), sent(1000, 1), resume(2000, 2), { ...sent(2200, 2), node: 'a' }]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('is not knowable when the log starts after the creation and the id cannot be placed', async () => {
    // 7 is below the highest id seen (12): it may have been sent before the log begins
    const report = await analyzeLines([sent(1000, 12), resume(2000, 7), resume(3000, 'opaque')]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const reasons = report.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason);
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toMatch(/log starts after S1 was created and no stream in it sent event (7|opaque)/);
  });

  it('is not knowable for a proxy-only session whose proxy never saw the id go by', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '40' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE).map((n) => [n.session, n.reason.startsWith('proxy log only')])).toEqual([['P1', true]]);
  });
});
