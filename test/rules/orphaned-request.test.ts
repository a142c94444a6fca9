import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const request = (ms: number, id: string, stream = 'g1') => ({
  ts: at(ms), kind: 'request.sent', session: 'S1', stream, request_id: id, method: 'sampling/createMessage',
});
const closed = (ms: number) => ({ ts: at(ms), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' });
const timedOut = (ms: number, id: string) => ({ ts: at(ms), kind: 'request.timed_out', session: 'S1', request_id: id });

describe('orphaned-request', () => {
  it('flags a request routed to a stream a resumption had already superseded, which then timed out', async () => {
    const report = await analyzeLines([
      created,
      opened,
      { ts: at(100), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1007 },
      { ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: 1007, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 },
      request(2000, 'req-43'),
      timedOut(302_000, 'req-43'),
    ]);
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('req-43 (sampling/createMessage) on g1');
    expect(f?.message).toContain('sent after g1 was superseded by resume on g2');
    expect(f?.message).toContain('timed out at 2026-11-09T10:05:02.000Z');
    expect(f?.at).toBe('2026-11-09T10:05:02.000Z');
    expect(evidenceLines(f!)).toEqual([4, 5, 6]);
  });

  it('flags a request still pending at the end of the log after its stream closed, whose answer got 404', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      closed(200),
      { ts: at(300), kind: 'request.answered', session: 'S1', request_id: 'r1', status: 404 },
    ]);
    const [f] = findingsOf(report, 'orphaned-request');
    expect(f?.message).toContain('g1 was closed at 2026-11-09T10:00:00.200Z while it was pending');
    expect(f?.message).toContain('still unanswered when the log ends');
    expect(f?.message).toContain('1 answer got an error status');
    expect(evidenceLines(f!)).toEqual([3, 4]);
  });

  it('flags a request pending while a reconnect of its session was rejected', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      { ts: at(500), kind: 'upgrade', session: 'S1', last_event_id: 3, decision: 'reject', status: 409, reason: 'stream_active' },
      timedOut(60_000, 'r1'),
    ]);
    const [f] = findingsOf(report, 'orphaned-request');
    expect(f?.message).toContain('a reconnect of S1 was rejected (409)');
    expect(evidenceLines(f!)).toEqual([3, 4, 5]);
  });

  it('does not flag a time-out on a live stream, nor requests answered, re-issued or cancelled after their stream died', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'slow'),
      request(110, 'answered'),
      request(120, 'reissued'),
      request(130, 'cancelled'),
      timedOut(1000, 'slow'),
      closed(2000),
      { ts: at(2100), kind: 'request.answered', session: 'S1', request_id: 'answered', status: 200 },
      { ts: at(2200), kind: 'request.reissued', session: 'S1', request_id: 'reissued', new_request_id: 'reissued-2', stream: 'g2' },
      { ts: at(2300), kind: 'request.cancelled', session: 'S1', request_id: 'cancelled', reason: 'stream_lost' },
    ]);
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
  });

  // log-format.md: a close for polling ends the connection, not the stream; the client resumes it after retry_ms.
  const polled = (ms: number) => ({ ts: at(ms), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'poll', retry_ms: 1000 });
  /** A 2025-11-25 session whose GET stream, primed, carried request r1 when the server closed it for polling. */
  const pendingAtPoll = [
    { ...created, protocol_version: '2025-11-25' },
    opened,
    { ts: at(20), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1, priming: true },
    request(1000, 'r1'),
    polled(1500),
  ];

  it('does not take a close for polling as the end of the stream: a request pending on it waits for its client', async () => {
    const report = await analyzeLines([...pendingAtPoll, { ts: at(3000), kind: 'session.state_changed', session: 'S1', aspect: 'subscriptions' }]);
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
  });

  it('flags it once the resumption after the poll supersedes the stream and neither re-emits nor cancels it', async () => {
    const report = await analyzeLines([
      ...pendingAtPoll,
      { ts: at(2500), kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 },
      timedOut(60_000, 'r1'),
    ]);
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('g1 was superseded by resume on g2');
    expect(evidenceLines(f!)).toEqual([4, 6, 7]);
  });

  // log-format.md: poll is since 2025-11-25; 2025-03-26 and 2025-06-18 have no polling (SHOULD NOT close the
  // stream before the response), so there a poll close ends the stream, as whatif counts it.
  const pendingAtPollIn = (version: string | undefined) =>
    pendingAtPoll.map((l) => (l === pendingAtPoll[0] ? (version ? { ...created, protocol_version: version } : created) : l));

  it('takes a poll close in a 2025-03-26 or 2025-06-18 session as the end of the stream, and says why', async () => {
    for (const version of ['2025-03-26', '2025-06-18']) {
      const report = await analyzeLines(pendingAtPollIn(version));
      const [f, ...rest] = findingsOf(report, 'orphaned-request');
      expect(rest).toEqual([]);
      expect(f?.message).toContain(`g1 was closed at 2026-11-09T10:00:01.500Z while it was pending (closed for polling, which ${version} does not have: the close ended the stream)`);
      expect(evidenceLines(f!)).toEqual([4, 5]);
    }
  });

  it('near miss: honours the poll close where the close itself logs 2025-11-25, or where no version is logged at all', async () => {
    const ownVersion = pendingAtPollIn('2025-03-26').map((l) => (l === pendingAtPoll[4] ? { ...polled(1500), protocol_version: '2025-11-25' } : l));
    expect(findingsOf(await analyzeLines(ownVersion), 'orphaned-request')).toEqual([]);
    expect(findingsOf(await analyzeLines(pendingAtPollIn(undefined)), 'orphaned-request')).toEqual([]);
  });

  it('still flags a request cancelled only after it had timed out', async () => {
    const report = await analyzeLines([created, opened, request(100, 'r1'), closed(200), timedOut(1000, 'r1'), { ts: at(1100), kind: 'request.cancelled', session: 'S1', request_id: 'r1' }]);
    expect(evidenceLines(findingsOf(report, 'orphaned-request')[0]!)).toEqual([3, 4, 5]);
  });

  it('is not knowable from a proxy log', async () => {
    const report = await analyzeLines([
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 409, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '9' } },
    ]);
    expect(report.not_knowable.filter((n) => n.rule === 'orphaned-request')).toEqual([
      { rule: 'orphaned-request', session: 'P1', reason: expect.stringMatching(/proxy log only/) },
    ]);
  });
});

describe('orphaned-request with an orphan window (--orphan-window, a soak log cut mid-flight)', () => {
  const ping = (ms: number) => ({ ts: at(ms), kind: 'call', session: 'S1', rpc_id: 9, method: 'ping', status: 200 });
  const cut = [created, opened, request(100, 'r1'), closed(2000)];
  const notKnowable = (r: Awaited<ReturnType<typeof analyzeLines>>) => r.not_knowable.filter((n) => n.rule === 'orphaned-request');

  it('is a finding by default, however soon the log ends (rules.md)', async () => {
    const report = await analyzeLines([...cut, ping(12_000)]);
    expect(findingsOf(report, 'orphaned-request')).toHaveLength(1);
    expect(notKnowable(report)).toEqual([]);
  });

  it('is not knowable when the log ends within the window after the request was stranded', async () => {
    const report = await analyzeLines([...cut, ping(12_000)], { orphanWindowMs: 30_000 });
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
    expect(notKnowable(report)).toEqual([
      {
        rule: 'orphaned-request',
        session: 'S1',
        reason:
          'server request r1 (sampling/createMessage) is still pending when the log ends, 10 s after g1 was closed at 2026-11-09T10:00:02.000Z, within the 30 s orphan window: the client may still come back for it',
      },
    ]);
  });

  it('is a finding when the log goes on past the window', async () => {
    const report = await analyzeLines([...cut, ping(32_001)], { orphanWindowMs: 30_000 });
    expect(findingsOf(report, 'orphaned-request')).toHaveLength(1);
    expect(notKnowable(report)).toEqual([]);
  });

  it('leaves a request that timed out a finding, inside the window too', async () => {
    const report = await analyzeLines([...cut, timedOut(3000, 'r1'), ping(12_000)], { orphanWindowMs: 30_000 });
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('timed out at');
    expect(notKnowable(report)).toEqual([]);
  });
});
