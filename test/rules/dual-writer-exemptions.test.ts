import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

// What may excuse a takeover of a stream that was neither closed nor fenced: a replay-only write to that very
// stream before the takeover, or an end of the session that stream belonged to. Nothing wider.
const created = (ms = 0) => ({ ts: at(ms), kind: 'session.created', session: 'S1', principal: 'alice' });
const opened = (ms: number, stream: string, via = 'get') => ({ ts: at(ms), kind: 'stream.opened', session: 'S1', stream, via });
const sent = (ms: number, stream: string, id: number, extra: Record<string, unknown> = {}) => ({
  ts: at(ms), kind: 'event.sent', session: 'S1', stream, event_id: id, ...extra,
});
const attach = (ms: number) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: null, decision: 'attach', new_stream: 'g2', status: 200, replayed: 0, reemitted: 0,
});
const retired = (ms: number) => ({ ts: at(ms), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'half_open' });
const detached = { attached: false };

const twoWriters = 'attach to S1 on g2 took over from g1 while g1 was neither closed nor fenced (it was retired only at 2026-11-09T10:00:30.000Z): two writers for the session\'s standalone stream';

describe('dual-writer: what a replay-only write excuses', () => {
  it('flags a takeover of g1 when only another stream of the session (a POST stream) was written for replay only', async () => {
    const report = await analyzeLines([
      created(), opened(10, 'g1'), sent(100, 'g1', 1), opened(200, 'p1', 'post'),
      sent(300, 'p1', 2, { rpc_kind: 'notification', ...detached }), attach(1000), retired(30_000),
    ]);
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(twoWriters);
    expect(evidenceLines(f!)).toEqual([2, 6, 7]);
  });

  it('near miss: the same replay-only write on g1 itself before the takeover: the server knew no body was live there', async () => {
    const report = await analyzeLines([created(), opened(10, 'g1'), sent(100, 'g1', 1), sent(300, 'g1', 2, detached), attach(1000), retired(30_000)]);
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
  });

  it('flags a takeover although g1 was written for replay only after it: what the server learned later excuses nothing', async () => {
    const report = await analyzeLines([created(), opened(10, 'g1'), sent(100, 'g1', 1), attach(1000), sent(5000, 'g1', 2, detached), retired(30_000)]);
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(twoWriters);
    // the late write is its own fault, reported beside it
    expect(findingsOf(report, 'write-to-superseded-stream').map((w) => w.session)).toEqual(['S1']);
  });
});

describe('dual-writer: which session end retires the old stream', () => {
  it('flags a takeover in a reused session id whose earlier incarnation was evicted before g1 opened', async () => {
    const report = await analyzeLines([
      created(), { ts: at(1000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' },
      created(2000), opened(2010, 'g1'), sent(2100, 'g1', 1), attach(3000), retired(30_000),
    ]);
    expect(findingsOf(report, 'session-id-reuse').map((f) => f.session)).toEqual(['S1']);
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(twoWriters);
  });

  it('near miss: the session evicted after g1 opened and before the attach: g1 had no writer left', async () => {
    const report = await analyzeLines([
      created(), opened(10, 'g1'), sent(100, 'g1', 1), { ts: at(1000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' }, attach(2000),
    ]);
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
  });
});
