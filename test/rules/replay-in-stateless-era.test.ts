import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const RULE = 'replay-in-stateless-era';
const V = '2026-07-28';

describe(RULE, () => {
  it('fires on a stateless request with Last-Event-ID that was resumed, or that replayed events', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: 5, new_stream: 'p2', decision: 'resume', status: 200, protocol_version: V },
      { ts: at(1), kind: 'upgrade', session: null, last_event_id: 9, new_stream: 'p3', decision: 'fresh', status: 200, replayed: 3, protocol_version: V },
    ]);
    const found = findingsOf(report, RULE);
    expect(found.map((f) => [f.severity, f.session, evidenceLines(f)])).toEqual([
      ['error', null, [1]],
      ['error', null, [2]],
    ]);
    expect(found[1]!.message).toContain('replayed 3 past events');
  });

  it('near miss: the header ignored, a rejected resume, or the same resume at 2025-11-25', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'upgrade', session: null, last_event_id: 5, new_stream: 'p2', decision: 'fresh', status: 200, replayed: 0, protocol_version: V },
      { ts: at(1), kind: 'upgrade', session: null, last_event_id: 5, decision: 'resume', status: 400, protocol_version: V },
      { ts: at(2), kind: 'session.created', session: 'S1', protocol_version: '2025-11-25' },
      { ts: at(3), kind: 'event.sent', session: 'S1', stream: 'g', event_id: 5 },
      { ts: at(4), kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 },
      // a version that is not a date names no revision, though it sorts after every date
      { ts: at(5), kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g2', new_stream: 'g3', decision: 'resume', status: 200, replayed: 0, protocol_version: 'latest' },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });
});
