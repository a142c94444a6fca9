import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'foreign-event-id';

const created = (session: string, ms = 0, incarnation?: string) => ({ ts: at(ms), kind: 'session.created', session, ...(incarnation && { incarnation }) });
const sent = (ms: number, id: number | string, session = 'S1', stream = 'g1') => ({ ts: at(ms), kind: 'event.sent', session, stream, event_id: id });
const resume = (ms: number, fields: Record<string, unknown>) => ({
  ts: at(ms),
  kind: 'upgrade',
  session: 'S1',
  new_stream: 'g2',
  decision: 'resume',
  status: 200,
  replayed: 0,
  ...fields,
});

describe('foreign-event-id', () => {
  it("flags a resumption from an id only another session sent: a replay from another session's log", async () => {
    const report = await analyzeLines([
      created('S1'), // 1
      created('S2'), // 2
      sent(1000, 1), // 3
      sent(1100, 7, 'S2', 'x1'), // 4
      resume(2000, { last_event_id: 7 }), // 5
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event 7, which session S2 sent on stream x1');
    expect(evidenceLines(f!)).toEqual([4, 5]);
  });

  it('flags a cross-stream resumption and a replayed event from another stream', async () => {
    const report = await analyzeLines([
      created('S1'), // 1
      sent(1000, 5, 'S1', 'g1'), // 2
      sent(1100, 9, 'S1', 'p1'), // 3: a POST response stream
      resume(2000, { last_event_id: 9, stream: 'g1' }), // 4: says it resumes g1, but 9 belongs to p1
      sent(2100, 10, 'S1', 'g2'), // 5
      resume(3000, { last_event_id: 10, stream: 'g2', new_stream: 'g3', replayed: 1, replayed_ids: [12] }), // 6
      sent(1150, 12, 'S1', 'p1'), // 7: logged late, sent before the upgrade on p1
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => f.message)).toEqual([
      expect.stringContaining('resumed S1 from event 9, which was sent on stream p1, not on the resumed stream g1: a cross-stream replay'),
      expect.stringContaining('resumed S1 from event 10 but replayed event 12, which was sent on stream p1, not on the resumed stream g2'),
    ]);
    expect(evidenceLines(found[0]!)).toEqual([3, 4]);
    expect(evidenceLines(found[1]!)).toEqual([7, 6]);
  });

  it('flags a resumption from an id an earlier incarnation of the session id sent', async () => {
    const report = await analyzeLines([
      created('S1', 0, 'i-1'), // 1
      sent(1000, 7), // 2
      { ts: at(1500), kind: 'session.evicted', session: 'S1' }, // 3
      created('S1', 1600, 'i-2'), // 4
      sent(1700, 1), // 5
      resume(2000, { last_event_id: 7 }), // 6
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('which an earlier incarnation of S1 sent on stream g1');
    // the creation again shows the event another incarnation's: without it the lines read as a correct resumption
    expect(evidenceLines(f!)).toEqual([2, 4, 6]);
  });

  it('does not flag per-session ids that collide across sessions, nor a resumed lineage', async () => {
    const report = await analyzeLines([
      created('S1'),
      created('S2'),
      sent(1000, 5, 'S2', 'x1'),
      sent(1100, 5),
      resume(2000, { last_event_id: 5, stream: 'g1' }),
      sent(2100, 6, 'S1', 'g2'), // g2 continues g1's lineage
      resume(3000, { last_event_id: 6, stream: 'g1', new_stream: 'g3' }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('is not knowable when the log starts after the session was created and another session sent the id', async () => {
    const report = await analyzeLines([created('S2'), sent(1000, 7, 'S2', 'x1'), resume(2000, { last_event_id: 7 })]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const [nk] = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk!.session).toBe('S1');
    expect(nk!.reason).toContain('S1 may have sent it before the log begins');
  });

  describe('clock skew: the session sends the id itself within the allowance after, on another node', () => {
    const skewed = (resumeNode: string, sentMs: number) => [
      { ts: at(0), kind: 'session.created', session: 'S9', node: 'mcp-a' },
      { ts: at(100), kind: 'event.sent', session: 'S9', stream: 'h1', event_id: 1, node: 'mcp-a' },
      { ts: at(5_000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, node: resumeNode },
      { ts: at(5_700), kind: 'session.created', session: 'S1', node: 'mcp-a' },
      { ts: at(sentMs), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1, node: 'mcp-a' },
    ];

    it('takes it for its own: no finding and no "the log starts after" not-knowable', async () => {
      const report = await analyzeLines(skewed('mcp-b', 5_800));
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
    });

    it('near miss: sent past the allowance, or on the node that took the resumption, it was another session\'s then', async () => {
      const late = await analyzeLines(skewed('mcp-b', 16_000));
      expect(report_(late)).toEqual(['not knowable']);
      const sameNode = await analyzeLines(skewed('mcp-a', 5_800));
      expect(report_(sameNode)).toEqual(['not knowable']);
    });
  });
});

/** What foreign-event-id said of S1: its findings' messages, or 'not knowable'. */
function report_(r: Awaited<ReturnType<typeof analyzeLines>>): string[] {
  return [...findingsOf(r, RULE).map((f) => f.message), ...r.not_knowable.filter((n) => n.rule === RULE).map(() => 'not knowable')];
}
