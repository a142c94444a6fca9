import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = (ms: number, stream: string) => ({ ts: at(ms), kind: 'stream.opened', session: 'S1', stream, via: 'get', conn: 'c1' });
const sent = (ms: number, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: id });
const resume = (ms: number) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: 1007, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, conn: 'c2',
});

describe('dual-writer', () => {
  it('flags a resumption accepted while the old stream was still neither closed nor fenced', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      sent(100, 1007),
      resume(1000),
      { ts: at(90_000), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'half_open' },
    ]);
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('resume of S1 from event 1007 (new stream g2) took over from g1');
    expect(f?.message).toContain('took over from g1');
    expect(f?.message).toContain('two writers for lineage g1');
    expect(f?.message).toContain('2026-11-09T10:01:30.000Z');
    // the message names when the old stream was retired: its close is cited too
    expect(evidenceLines(f!)).toEqual([2, 4, 5]);
  });

  // An export that begins after the client went away: the close is not in it, but the server wrote the old
  // stream's events for replay only, so it knew no body was live there.
  const bufferedThenResumed = (attached: boolean) => [
    { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1007 },
    { ts: at(500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1008, ...(attached ? {} : { attached: false }) },
    { ...resume(1000), replayed: 1 },
  ];

  it('near miss: the server had written the old stream\'s events for replay only before the takeover', async () => {
    expect(findingsOf(await analyzeLines(bufferedThenResumed(false)), 'dual-writer')).toEqual([]);
  });

  it('flags the same takeover where the old stream\'s last write went to a live body', async () => {
    expect(findingsOf(await analyzeLines(bufferedThenResumed(true)), 'dual-writer').map((f) => f.session)).toEqual(['S1']);
  });

  it('flags an attach while the earlier GET stream is still open', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 },
    ]);
    const [f] = findingsOf(report, 'dual-writer');
    expect(f?.message).toContain('attach to S1 on g3 took over from g1');
    expect(f?.message).toContain("standalone stream");
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  it('accepts a takeover fenced just before it, and ignores POST streams on an attach', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      { ts: at(20), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
      sent(100, 1007),
      // same millisecond as the upgrade, but logged before it
      { ts: at(1000), kind: 'stream.fenced', session: 'S1', stream: 'g1' },
      resume(1000),
      { ts: at(2000), kind: 'stream.closed', session: 'S1', stream: 'g2' },
      { ts: at(3000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 },
    ]);
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
  });

  it('flags a fence logged only after the upgrade, even in the same millisecond', async () => {
    const report = await analyzeLines([created, opened(10, 'g1'), sent(100, 1007), resume(1000), { ts: at(1000), kind: 'stream.fenced', session: 'S1', stream: 'g1' }]);
    expect(evidenceLines(findingsOf(report, 'dual-writer')[0]!)).toEqual([2, 4, 5]);
  });

  // Two nodes sharing a store: the resumption on node b, the old stream's writer on node a.
  const acrossNodes = (fencedMs: number, fenceNode: string) => [
    { ...created, node: 'a' },
    { ...opened(10, 'g1'), node: 'a' },
    { ...sent(100, 1007), node: 'a' },
    { ...resume(1000), node: 'b' },
    { ts: at(fencedMs), kind: 'stream.fenced', session: 'S1', stream: 'g1', node: fenceNode },
  ];

  it('does not judge a writer another node retired within a second of the takeover, and says why', async () => {
    const report = await analyzeLines(acrossNodes(1225, 'a'));
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer')).toEqual([
      {
        rule: 'dual-writer',
        session: 'S1',
        reason: `g1 was retired on a 225 ms after the takeover on b at ${at(1000)}: the two nodes' clocks cannot order records less than 1 s apart, so whether it was fenced first cannot be told`,
      },
    ]);
    // the engine, which holds that b cannot fence a's writer, says the same instead of diverging
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'engine-divergence').map((n) => n.reason)).toEqual([
      `the writers on other nodes that the resumption at ${at(1000)} took over from were retired within 1 s after it: the nodes' clocks cannot order that, so whether they were fenced first cannot be told`,
    ]);
  });

  it('flags a writer another node retired more than a second after the takeover, and one retired soon after on the same node', async () => {
    for (const [ms, node] of [[2100, 'a'], [1225, 'b']] as const) {
      const report = await analyzeLines(acrossNodes(ms, node));
      expect(findingsOf(report, 'dual-writer'), `${node} +${ms - 1000} ms`).toHaveLength(1);
      expect(report.not_knowable.filter((n) => n.rule === 'dual-writer')).toEqual([]);
    }
  });

  // The before-side is taken by the clocks (README, decisions): a client reconnects because its stream broke, so a
  // close on the old node shortly before the takeover is what a correct failover logs, not a doubt to report.
  it('near miss: a writer another node closed or fenced less than a second before the takeover is retired, not unknown', async () => {
    for (const kind of ['stream.closed', 'stream.fenced']) {
      const lines = acrossNodes(600, 'a').map((r) => (r.kind === 'stream.fenced' ? { ...r, kind, reason: 'client' } : r));
      const report = await analyzeLines(lines);
      expect(findingsOf(report, 'dual-writer'), kind).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === 'dual-writer'), kind).toEqual([]);
    }
  });

  // Node b's clock runs behind a's: the takeover on b replays event 1008, which a logs sending 600 ms later.
  const inverted = (fencedMs: number) => [
    ...acrossNodes(fencedMs, 'a').slice(0, 3),
    { ...resume(1000), node: 'b', replayed: 1, first_replayed: 1008 },
    { ts: at(1600), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1008, node: 'a' },
    { ts: at(fencedMs), kind: 'stream.fenced', session: 'S1', stream: 'g1', node: 'a' },
  ];

  it('widens the cross-node margin by the skew the takeover\'s own lines prove, and says they are in an impossible order', async () => {
    const report = await analyzeLines(inverted(2400));
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer').map((n) => n.reason)).toEqual([
      `g1 was retired on a 1400 ms after the takeover on b at ${at(1000)}, but the takeover's own lines are in an impossible order: it replayed event 1008 600 ms before a logged sending it, so the clock of b runs at least 600 ms behind a's (clock skew). Less than 1 s apart beyond that, which the two clocks cannot order, so whether it was fenced first cannot be told`,
    ]);
  });

  it('near miss: a retirement later than that margin stays a finding, which says its lines are in an impossible order', async () => {
    const report = await analyzeLines(inverted(2700));
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toMatch(/two writers for lineage g1 \(its lines are in an impossible order: it replayed event 1008 600 ms before a logged sending it, so the clock of b runs at least 600 ms behind a's \(clock skew\)\)$/);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer')).toEqual([]);
  });

  // Node b's clock 12 s behind a's, beyond the 10 s allowance: the takeover on b replays events 1008 and 1009,
  // which a logs sending 11 and 12 s later. A server cannot replay what was not yet written: the proof holds
  // whatever the gap.
  const farBehind = (fencedMs: number) => [
    ...acrossNodes(fencedMs, 'a').slice(0, 3),
    { ...resume(1000), node: 'b', replayed: 2, first_replayed: 1008, replayed_ids: [1008, 1009] },
    { ts: at(12_000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1008, node: 'a' },
    { ts: at(13_000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1009, node: 'a' },
    { ts: at(fencedMs), kind: 'stream.fenced', session: 'S1', stream: 'g1', node: 'a' },
  ];

  it('counts the skew a replayed event\'s send proves beyond the clock-skew allowance', async () => {
    const report = await analyzeLines(farBehind(13_500));
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer').map((n) => n.reason)).toEqual([
      `g1 was retired on a 12500 ms after the takeover on b at ${at(1000)}, but the takeover's own lines are in an impossible order: it replayed event 1009 12000 ms before a logged sending it, so the clock of b runs at least 12000 ms behind a's (clock skew). Less than 1 s apart beyond that, which the two clocks cannot order, so whether it was fenced first cannot be told`,
    ]);
    // the engine widens its margin by the same proof (facts/takeover-skew.sql)
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'engine-divergence').map((n) => n.reason)).toEqual([
      expect.stringContaining('beyond the 12000 ms its own lines show another node\'s clock ahead'),
    ]);
  });

  it('near miss: a retirement more than a second beyond that proof stays a finding', async () => {
    const report = await analyzeLines(farBehind(14_100));
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toMatch(/\(its lines are in an impossible order: it replayed event 1009 12000 ms before a logged sending it, so the clock of b runs at least 12000 ms behind a's \(clock skew\)\)$/);
  });

  it('near miss: a Last-Event-ID first logged sent beyond the allowance proves no skew (it was no position yet)', async () => {
    const report = await analyzeLines([
      { ...created, node: 'a' },
      { ...opened(10, 'g1'), node: 'a' },
      { ...resume(1000), node: 'b' },
      { ...sent(12_000, 1007), node: 'a' },
      { ts: at(12_500), kind: 'stream.fenced', session: 'S1', stream: 'g1', node: 'a' },
    ]);
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.message).toMatch(/two writers for lineage g1$/);
  });

  // A node restarted (killed, its in-memory sessions gone) logs no close for its streams: another node that
  // takes over the session still has two writers by the log, and the message says the first may have died.
  const takenOverOn = (lastOfA: number) => [
    { ...created, node: 'a' },
    { ...opened(10, 'g1'), node: 'a' },
    { ...sent(100, 1007), node: 'a' },
    { ts: at(lastOfA), kind: 'event.sent', session: 'S9', stream: 'x', event_id: 1, node: 'a' },
    { ...resume(1000), node: 'b' },
  ];

  it('says the old writer\'s node logged nothing after, before another node took over', async () => {
    const [f] = findingsOf(await analyzeLines(takenOverOn(500)), 'dual-writer');
    expect(f?.message).toMatch(/two writers for lineage g1 \(a, which wrote g1, logged nothing after 2026-11-09T10:00:00\.500Z: if its process died, g1 died with it, which no log line shows\)$/);
  });

  it('near miss: says nothing of it where that node logged after the takeover', async () => {
    const [f] = findingsOf(await analyzeLines(takenOverOn(5000)), 'dual-writer');
    expect(f?.message).toMatch(/two writers for lineage g1$/);
  });

  it('is not knowable from a proxy log', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '5' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer')).toEqual([
      { rule: 'dual-writer', session: 'P1', reason: expect.stringMatching(/proxy log only/) },
    ]);
  });
  // rules.md v2: a resumed POST response stays a POST lineage, which an attach does not supersede; the new
  // stream of an upgrade that mints a session belongs to the minted session.
  const postLineage = [
    created, // 1
    { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post', conn: 'c1' }, // 2
    { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 1 }, // 3
    { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'p1', new_stream: 'p2', decision: 'resume', status: 200, replayed: 0 }, // 4
    { ts: at(1100), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'client' }, // 5
    { ts: at(2000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, // 6
    { ts: at(3000), kind: 'event.sent', session: 'S1', stream: 'p2', event_id: 2 }, // 7
  ];
  it('does not let an attach supersede a stream that resumes a POST response', async () => {
    const report = await analyzeLines(postLineage);
    expect(findingsOf(report, 'dual-writer').map((f) => evidenceLines(f))).toEqual([[2, 4, 5]]);
    expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
  });

  it('flags an attach over the open stream a minting fresh upgrade opened for the minted session', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'session.created', session: 'OLD' }, // 1
      { ts: at(500), kind: 'session.evicted', session: 'OLD', reason: 'idle_timeout' }, // 2
      { ts: at(1000), kind: 'upgrade', session: 'OLD', last_event_id: null, new_stream: 'm1', new_session: 'NEW', decision: 'fresh', status: 200, reset_signalled: true }, // 3
      { ts: at(1001), kind: 'session.created', session: 'NEW' }, // 4
      { ts: at(2000), kind: 'upgrade', session: 'NEW', last_event_id: null, new_stream: 'm2', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 }, // 5
      { ts: at(3000), kind: 'stream.closed', session: 'NEW', stream: 'm1', reason: 'half_open' }, // 6
    ]);
    expect(findingsOf(report, 'dual-writer').map((f) => [f.session, evidenceLines(f)])).toEqual([['NEW', [3, 5, 6]]]);
  });

  // node a logs microseconds, node b (the resuming node) milliseconds: .360Z is some instant in that millisecond
  const crossNodeFence = (fenceFirst: boolean) => {
    const fence = { ts: '2026-11-09T10:00:03.360177Z', kind: 'stream.fenced', session: 'S1', stream: 'g1', node: 'a' };
    const up = { ...resume(3360), node: 'b' };
    return [{ ...created, node: 'a' }, { ...opened(10, 'g1'), node: 'a' }, { ...sent(100, 1007), node: 'a' }, ...(fenceFirst ? [fence, up] : [up, fence])];
  };

  it('accepts a fence logged to the microsecond in the millisecond of the resumption, logged before it', async () => {
    const report = await analyzeLines(crossNodeFence(true));
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer')).toEqual([]);
  });

  it('does not judge the same fence logged after the resumption: the two nodes\' clocks cannot order them', async () => {
    const report = await analyzeLines(crossNodeFence(false));
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'dual-writer').map((n) => n.reason)).toEqual([
      `g1 was retired on a in the same millisecond as the takeover on b at ${at(3360)}: the two nodes' clocks cannot order records less than 1 s apart, so whether it was fenced first cannot be told`,
    ]);
    // the engine says the same of that resumption rather than a divergence no rule explains
    expect(findingsOf(report, 'engine-divergence')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'engine-divergence').map((n) => n.reason)).toEqual([
      `the writers on other nodes that the resumption at ${at(3360)} took over from were retired within 1 s after it: the nodes' clocks cannot order that, so whether they were fenced first cannot be told`,
    ]);
  });
});

// A client that resumes from one position twice, both accepted (seed 001's second writer): the first resumption's
// new stream g2 is the lineage's live uplink when the second opens g3, though the second names g1.
describe('dual-writer: a second resumption from the same position', () => {
  const resumeFrom = (ms: number, newStream: string, status = 200) => ({ ...resume(ms), last_event_id: 1007, new_stream: newStream, status });
  type Line = Record<string, unknown>;
  const twice = (between: Line[], after: Line[] = [], g1Closed = true): Line[] => [
    created,
    opened(10, 'g1'),
    sent(100, 1007),
    ...(g1Closed ? [{ ts: at(300), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' }] : []),
    resumeFrom(1000, 'g2'),
    ...between,
    resumeFrom(2000, 'g3'),
    ...after,
  ];

  it('flags it as the lineage\'s live uplink taken over, citing both resumptions and g2\'s write after', async () => {
    const report = await analyzeLines(
      twice([], [
        { ts: at(2100), kind: 'event.sent', session: 'S1', stream: 'g2', event_id: 1008 },
        { ts: at(2200), kind: 'event.sent', session: 'S1', stream: 'g3', event_id: 1009 },
      ]),
    );
    const [f, ...rest] = findingsOf(report, 'dual-writer');
    expect(rest).toEqual([]);
    expect(f?.at).toBe(at(2000));
    expect(f?.message).toBe(
      `resume of S1 from event 1007 (new stream g3) took over from g2 while g2 was neither closed nor fenced: two writers for lineage g1 ` +
        `(g2 was the lineage's live uplink, opened by the resume at ${at(1000)}, and it wrote event 1008 after the takeover)`,
    );
    expect(evidenceLines(f!)).toEqual([5, 6, 7]);
  });

  it('flags both takeovers where g1 was still open, the second naming g2', async () => {
    const report = await analyzeLines(twice([], [], false));
    const found = findingsOf(report, 'dual-writer');
    expect(found.map((f) => f.message.match(/took over from (g\d)/)?.[1])).toEqual(['g1', 'g2']);
    expect(evidenceLines(found[1]!)).toEqual([4, 5]);
  });

  it('near miss: g2 closed or fenced before the second resumption', async () => {
    for (const kind of ['stream.closed', 'stream.fenced']) {
      const report = await analyzeLines(twice([{ ts: at(1500), kind, session: 'S1', stream: 'g2', reason: 'client' }]));
      expect(findingsOf(report, 'dual-writer'), kind).toEqual([]);
    }
  });

  it('near miss: the client\'s retry rejected 409', async () => {
    const report = await analyzeLines([...twice([]).slice(0, -1), resumeFrom(2000, 'g3', 409)]);
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
  });

  it('near miss: a resumption of g2 itself after g2 closed (the lineage resumed in turn, not twice)', async () => {
    const report = await analyzeLines(
      twice([
        { ts: at(1200), kind: 'event.sent', session: 'S1', stream: 'g2', event_id: 1008 },
        { ts: at(1500), kind: 'stream.closed', session: 'S1', stream: 'g2', reason: 'error' },
      ]).map((r) => (r.ts === at(2000) ? { ...r, stream: 'g2', last_event_id: 1008 } : r)),
    );
    expect(findingsOf(report, 'dual-writer')).toEqual([]);
  });
});
