import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const rejected = (ms: number, reason = 'stream_active') => ({
  ts: at(ms), kind: 'upgrade', session: 'S1', last_event_id: 1007, stream: 'g1', decision: 'reject', status: 409, reason,
});

describe('stale-writer-blocks-reconnect', () => {
  it('flags conflict rejections while an unfenced stream stays registered past the grace period', async () => {
    const report = await analyzeLines([
      created,
      opened,
      rejected(1000),
      rejected(3000),
      { ts: at(9000), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'half_open' },
    ]);
    const [f, ...rest] = findingsOf(report, 'stale-writer-blocks-reconnect');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('2 reconnects of S1 were rejected (409 stream_active)');
    expect(f?.message).toContain('g1 was still registered');
    expect(f?.message).toContain('within 5 s');
    expect(f?.message).toContain('retired only at 2026-11-09T10:00:09.000Z');
    // both rejections the message counts are cited, and the late close
    expect(evidenceLines(f!)).toEqual([2, 3, 4, 5]);
  });

  it('counts every rejection, and cites the first 20 of a stream that blocked more', async () => {
    const refusals = Array.from({ length: 30 }, (_, i) => rejected(1000 + 1000 * i));
    const end = { ts: at(60_000), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'half_open' };
    const [f] = findingsOf(await analyzeLines([created, opened, ...refusals, end]), 'stale-writer-blocks-reconnect');
    expect(f?.message).toContain('30 reconnects of S1 were rejected (409 stream_active; the first 20 cited)');
    // the stream's opening, the first 20 rejections in order, and the late close (line 33)
    expect(evidenceLines(f!)).toEqual([2, ...Array.from({ length: 20 }, (_, i) => 3 + i), 33]);
    // at 20 or fewer, each is cited and the message says nothing more
    const [g] = findingsOf(await analyzeLines([created, opened, ...refusals.slice(0, 20), end]), 'stale-writer-blocks-reconnect');
    expect(g?.message).toContain('20 reconnects of S1 were rejected (409 stream_active) from');
    expect(evidenceLines(g!)).toHaveLength(22);
  });

  it('judges with the configured fence grace period', async () => {
    const lines = [created, opened, rejected(1000), { ts: at(9000), kind: 'stream.closed', session: 'S1', stream: 'g1' }];
    expect(findingsOf(await analyzeLines(lines, { fenceGraceMs: 10_000 }), 'stale-writer-blocks-reconnect')).toEqual([]);
    expect(findingsOf(await analyzeLines(lines, { fenceGraceMs: 2_000 }), 'stale-writer-blocks-reconnect')).toHaveLength(1);
  });

  it('does not flag a writer fenced within the grace period, nor a 409 for an unavailable window', async () => {
    const fenced = await analyzeLines([created, opened, rejected(1000), { ts: at(4000), kind: 'stream.fenced', session: 'S1', stream: 'g1' }, rejected(20_000)]);
    expect(findingsOf(fenced, 'stale-writer-blocks-reconnect')).toEqual([]);
    const evicted = await analyzeLines([created, opened, rejected(1000, 'resumption_unavailable'), { ts: at(60_000), kind: 'stream.closed', session: 'S1', stream: 'g1' }]);
    expect(findingsOf(evicted, 'stale-writer-blocks-reconnect')).toEqual([]);
  });

  it('flags a writer never retired, and names the log ending inside the grace period as not knowable', async () => {
    const never = await analyzeLines([created, opened, rejected(1000), { ts: at(30_000), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1008 }]);
    const [f] = findingsOf(never, 'stale-writer-blocks-reconnect');
    expect(f?.message).toContain('never closed or fenced');
    expect(evidenceLines(f!)).toEqual([2, 3]);

    const short = await analyzeLines([created, opened, rejected(1000)]);
    expect(findingsOf(short, 'stale-writer-blocks-reconnect')).toEqual([]);
    expect(short.not_knowable.filter((n) => n.rule === 'stale-writer-blocks-reconnect')).toEqual([
      { rule: 'stale-writer-blocks-reconnect', session: 'S1', reason: expect.stringMatching(/log ends within the 5 s fence grace period/) },
    ]);
  });

  it('is not knowable from a proxy log that shows only the 409s', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 409, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '9' } },
    ]);
    expect(report.not_knowable.filter((n) => n.rule === 'stale-writer-blocks-reconnect')).toEqual([
      { rule: 'stale-writer-blocks-reconnect', session: 'P1', reason: expect.stringMatching(/proxy log only/) },
    ]);
  });
});
