import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = (ms: number, stream: string, via = 'get') => ({ ts: at(ms), kind: 'stream.opened', session: 'S1', stream, via });
const sent = (ms: number, stream: string, id: number) => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream, event_id: id });
const request = (ms: number, stream: string, id: string, eventId?: number) => ({
  ts: at(ms), kind: 'request.sent', session: 'S1', stream, request_id: id, method: 'sampling/createMessage', ...(eventId !== undefined && { event_id: eventId }),
});
const resume = (ms: number, reemitted: number | undefined) => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: 5, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200,
  replayed: 1, first_replayed: 6, ...(reemitted !== undefined && { reemitted }), cancelled: 0,
});

describe('duplicate-reemit', () => {
  it('flags a resume that re-emitted a request its replay already carries', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      sent(100, 'g1', 5),
      sent(200, 'g1', 6),
      request(200, 'g1', 'r1', 6),
      { ts: at(500), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' },
      resume(1000, 1),
    ]);
    const [f, ...rest] = findingsOf(report, 'duplicate-reemit');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.severity).toBe('warning');
    expect(f?.message).toContain('from event 5');
    expect(f?.message).toContain('re-emitted 1');
    expect(f?.message).toContain('r1');
    expect(evidenceLines(f!)).toEqual([5, 7]);
  });

  // Seed 000: a stream resumption must "not re-emit already-delivered pending requests". A request
  // written to a live POST stream was delivered, even if that stream broke later.
  it('flags a resume that re-emitted a request delivered on another stream', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      opened(20, 'p1', 'post'),
      sent(100, 'g1', 5),
      request(150, 'p1', 'r9'),
      { ts: at(400), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'error' },
      { ts: at(500), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' },
      resume(1000, 1),
    ]);
    const [f, ...rest] = findingsOf(report, 'duplicate-reemit');
    expect(rest).toHaveLength(0);
    expect(f?.message).toContain('r9 was delivered on another live stream');
    expect(evidenceLines(f!)).toEqual([5, 8]);
  });

  it('does not flag re-emitting a request the client never had (written to no live stream)', async () => {
    const report = await analyzeLines([
      created,
      opened(10, 'g1'),
      opened(20, 'p1', 'post'),
      sent(100, 'g1', 5),
      { ts: at(140), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'error' },
      { ts: at(150), kind: 'event.sent', session: 'S1', stream: 'p1', event_id: 'p1-1', rpc_kind: 'request', rpc_id: 'r9', method: 'sampling/createMessage', attached: false },
      request(150, 'p1', 'r9', undefined),
      { ts: at(500), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' },
      resume(1000, 1),
    ].map((r) => (r.kind === 'request.sent' ? { ...r, event_id: 'p1-1' } : r)));
    expect(findingsOf(report, 'duplicate-reemit')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'duplicate-reemit')).toEqual([]);
  });

  it('does not flag a resume that re-emitted nothing', async () => {
    const report = await analyzeLines([created, opened(10, 'g1'), sent(100, 'g1', 5), request(200, 'g1', 'r1', 6), resume(1000, 0)]);
    expect(findingsOf(report, 'duplicate-reemit')).toEqual([]);
  });

  it('is not knowable without the reemitted counter, or without the session history', async () => {
    const noCounter = await analyzeLines([created, opened(10, 'g1'), sent(100, 'g1', 5), resume(1000, undefined)]);
    expect(noCounter.not_knowable.filter((n) => n.rule === 'duplicate-reemit')).toEqual([
      { rule: 'duplicate-reemit', session: 'S1', reason: expect.stringMatching(/no reemitted counter/) },
    ]);
    const lateStart = await analyzeLines([opened(10, 'g1'), sent(100, 'g1', 5), resume(1000, 1)]);
    expect(findingsOf(lateStart, 'duplicate-reemit')).toEqual([]);
    expect(lateStart.not_knowable.filter((n) => n.rule === 'duplicate-reemit')).toEqual([
      { rule: 'duplicate-reemit', session: 'S1', reason: expect.stringMatching(/log starts after S1 was created/) },
    ]);
  });
});
