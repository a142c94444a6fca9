import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, stream: string, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream, event_id: id });

describe('write-to-superseded-stream', () => {
  it('flags writes to a stream after a resumption superseded it', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 'g1', 1007),
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1007, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 },
      sent(1100, 'g2', 1008),
      { ts: at(1200), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'req-43', method: 'sampling/createMessage' },
      sent(1300, 'g1', 1009),
    ]);
    const [f, ...rest] = findingsOf(report, 'write-to-superseded-stream');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('2 writes went to g1');
    expect(f?.message).toContain('request req-43, event 1009'); // in the order they were written
    expect(f?.message).toContain('resume on g2');
    // every late write the message counts is cited
    expect(evidenceLines(f!)).toEqual([4, 6, 7]);
  });

  it('does not flag a server that keeps its stream id across a resumption, nor writes before the takeover', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(100, 'g1', 1007),
      sent(200, 'g1', 1008),
      // the TypeScript SDK resumes its stream under the same id: g1 continues, it is not superseded
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1007, stream: 'g1', new_stream: 'g1', decision: 'resume', status: 200, replayed: 1, first_replayed: 1008 },
      sent(1100, 'g1', 1009),
    ]);
    expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
  });

  it('flags an unattached event written to a GET stream an attach replaced', async () => {
    const report = await analyzeLines([
      created,
      opened,
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 0, cancelled: 0 },
      { ts: at(1500), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 12, attached: false },
    ]);
    const [f] = findingsOf(report, 'write-to-superseded-stream');
    expect(f?.message).toContain('1 write went to g1 after attach on g3');
    expect(evidenceLines(f!)).toEqual([3, 4]);
  });

  // a node whose clock runs 200 ms behind logs the resumption before the write it replays
  const skewed = (replayedBy: 'event.replayed' | 'first_replayed' | 'replayed_ids', lateId: number) => [
    { ...created, node: 'a' },
    { ...opened, node: 'a' },
    { ...sent(1000, 'g1', 1), node: 'a' },
    { ts: at(2000), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'client', node: 'a' },
    { ...sent(2300, 'g1', 2), attached: false, node: 'a' },
    ...(lateId === 2 ? [] : [{ ...sent(2400, 'g1', lateId), attached: false, node: 'a' }]),
    {
      ts: at(2100), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200,
      replayed: 1, reemitted: 0, cancelled: 0, node: 'b',
      ...(replayedBy === 'first_replayed' ? { first_replayed: 2 } : replayedBy === 'replayed_ids' ? { replayed_ids: [2] } : {}),
    },
    ...(replayedBy === 'event.replayed' ? [{ ts: at(2100), kind: 'event.replayed', session: 'S1', stream: 'g2', event_id: 2, of_stream: 'g1', node: 'b' }] : []),
    { ...sent(3000, 'g2', 4), node: 'b' },
  ];

  it.each(['event.replayed', 'first_replayed', 'replayed_ids'] as const)(
    'does not flag a write the superseding resumption replayed (%s), though a skewed clock logs it after',
    async (how) => {
      const report = await analyzeLines(skewed(how, 2));
      expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
    },
  );

  it('still flags a late write beside the one the resumption replayed', async () => {
    const report = await analyzeLines(skewed('event.replayed', 3));
    const [f, ...rest] = findingsOf(report, 'write-to-superseded-stream');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('1 write went to g1');
    expect(f?.message).toContain('(event 3)');
  });

  // node b's clock runs 300 ms behind: it logs the resumption from event 2 before node a logs sending it
  const cursorAhead = (extra: LogLine[]) => [
    { ...created, node: 'a' },
    { ...opened, node: 'a' },
    { ...sent(1000, 'g1', 1), node: 'a' },
    { ...sent(1100, 'g1', 2), node: 'a' },
    ...extra,
    { ts: at(900), kind: 'upgrade', session: 'S1', last_event_id: 2, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, cancelled: 0, node: 'b' },
  ];

  it('does not flag the Last-Event-ID the resumption names, nor the writes before it on that stream, whatever the clocks say', async () => {
    const report = await analyzeLines(cursorAhead([]));
    expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
  });

  it('near miss: still flags a write after the named event on that stream', async () => {
    const report = await analyzeLines(cursorAhead([{ ...sent(1200, 'g1', 3), node: 'a' }]));
    const [f, ...rest] = findingsOf(report, 'write-to-superseded-stream');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('1 write went to g1');
    expect(f?.message).toContain('(event 3)');
  });

  // node b's clock runs 3 s behind a's: it logs the resumption from event 3, which replays only event 5, at a's
  // 10:00:03, before a logs writing events 4 and 5. The replay proves event 5 written first, and a's clock orders
  // event 4 before it: the event the replay skipped (silent-truncation's), no late write.
  const skippedUnderSkew = (extra: LogLine[]): Record<string, unknown>[] => [
    { ...created, node: 'a' },
    { ...opened, node: 'a' },
    ...[1, 2, 3, 4, 5].map((id) => ({ ...sent(id * 1000, 'g1', id), node: 'a' })),
    ...(extra as Record<string, unknown>[]),
    { ts: at(5500), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error', node: 'a' },
    {
      ts: at(3000), kind: 'upgrade', session: 'S1', last_event_id: 3, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200,
      replayed: 1, reemitted: 0, first_replayed: 5, replayed_ids: [5], node: 'b',
    },
  ];

  it('does not flag a write its node logged before an event the resumption replayed, whatever the clocks say', async () => {
    const report = await analyzeLines(skippedUnderSkew([]));
    expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
    expect(findingsOf(report, 'silent-truncation').map((f) => f.message)).toEqual([expect.stringContaining('(missing event 4)')]);
  });

  it('near miss: still flags a write after the last replayed event on that stream', async () => {
    const report = await analyzeLines(skippedUnderSkew([{ ...sent(5200, 'g1', 6), node: 'a' }]));
    const [f, ...rest] = findingsOf(report, 'write-to-superseded-stream');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('1 write went to g1');
    expect(f?.message).toContain('(event 6)');
  });

  it('near miss: one clock that logs the replayed event written after the resumption does not spare the writes before it', async () => {
    const oneNode = skippedUnderSkew([]).map((l) => ({ ...l, node: 'a' }));
    const [f, ...rest] = findingsOf(await analyzeLines(oneNode), 'write-to-superseded-stream');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('(event 4)');
  });

  it('is not knowable from a proxy log', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    expect(report.not_knowable.filter((n) => n.rule === 'write-to-superseded-stream')).toEqual([
      { rule: 'write-to-superseded-stream', session: 'P1', reason: expect.stringMatching(/proxy log only/) },
    ]);
  });
});
