import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'resume-across-state-change';

const created = { ts: at(0), kind: 'session.created', session: 'S1' };
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const changed = (ms: number, aspect = 'capabilities') => ({ ts: at(ms), kind: 'session.state_changed', session: 'S1', aspect });
const resume = (ms: number, lastEventId: number) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: lastEventId, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 1,
});

describe('resume-across-state-change', () => {
  it('flags a resumption accepted across a state change made after Last-Event-ID was sent', async () => {
    const report = await analyzeLines([created, sent(1000, 5), changed(1500), sent(1600, 6), resume(2000, 5)]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event 5 across a capabilities state change');
    expect(evidenceLines(f!)).toEqual([2, 3, 5]);
  });

  // rules.md v2: rules are judged independently; a foreign cursor is judged here too, from the time the
  // session that emitted it sent it.
  const foreign = [
    { ts: at(0), kind: 'session.created', session: 'S0' }, // 1
    { ts: at(100), kind: 'event.sent', session: 'S0', stream: 'h1', event_id: 'x-5' }, // 2
    created, // 3
  ];
  it('flags a foreign cursor resumed across a state change of the presented session made after it was sent', async () => {
    const report = await analyzeLines([...foreign, sent(1000, 1), changed(1500), resume(2000, 'x-5' as unknown as number)]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('resumed S1 from event x-5 (sent by S0) across a capabilities state change');
    expect(evidenceLines(f!)).toEqual([2, 5, 6]);
    expect(findingsOf(report, 'foreign-event-id')).toHaveLength(1);
  });

  it('does not flag a foreign cursor when the state change came before the other session sent it', async () => {
    const report = await analyzeLines([
      created, changed(50), { ts: at(60), kind: 'session.created', session: 'S0' },
      { ts: at(100), kind: 'event.sent', session: 'S0', stream: 'h1', event_id: 'x-5' }, resume(2000, 'x-5' as unknown as number),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(findingsOf(report, 'foreign-event-id')).toHaveLength(1);
  });

  it('does not flag a state change before the event, or after the upgrade', async () => {
    const report = await analyzeLines([created, changed(500, 'subscriptions'), sent(1000, 5), sent(1600, 6), resume(2000, 5), changed(2500)]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('is not knowable when the log never shows Last-Event-ID sent but shows a state change', async () => {
    // no creation in the log: event 3 may have been sent before it begins
    const report = await analyzeLines([sent(1000, 5), changed(1500, 'auth_scope'), resume(2000, 3)]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const [nk] = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk!.session).toBe('S1');
    expect(nk!.reason).toContain('never shows event 3 sent');
  });
});
