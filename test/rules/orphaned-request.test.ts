import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';
import { ruleOf } from '../../src/detect/rules/index.js';
import { findingFingerprint } from '../../src/findings/identity.js';

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

// A request replayed to the client by an accepted resumption of its lineage is still an orphan (README, "no
// exemption for a resumed stream"), but its message and evidence say the replay happened.
describe('orphaned-request on a request a resumption carried to the client', () => {
  const event = (ms: number, id: number, stream = 'g1') => ({ ts: at(ms), kind: 'event.sent', session: 'S1', stream, event_id: id });
  const withEvent = (ms: number, id: string, eventId: number) => ({ ...request(ms, id), event_id: eventId });
  const resume = (ms: number, fields: Record<string, unknown>) => ({
    ts: at(ms), kind: 'upgrade', session: 'S1', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, reemitted: 0, cancelled: 0, ...fields,
  });
  const opened2 = { ts: at(1001), kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get' };
  /** r1 in event 8 on g1, which dies; a resumption from event 7 at 1 s; r1 times out at 60 s. */
  const strandedThenResumed = (fields: Record<string, unknown>, extra: LogLine[] = []): LogLine[] => [
    created, opened, event(100, 7), withEvent(200, 'r1', 8), closed(500), resume(1000, { last_event_id: 7, ...fields }), opened2, ...extra, timedOut(60_000, 'r1'),
  ];
  const replayedFate = 'it was replayed on the resumed lineage at 2026-11-09T10:00:01.000Z but never answered, re-issued or cancelled before it timed out at 2026-11-09T10:01:00.000Z';
  const fitted = (message: string) => ruleOf('orphaned-request').explanation.fitted?.(message);

  it('says the request was replayed, cites the resumption, and explains it without "the client never knew"', async () => {
    const report = await analyzeLines(strandedThenResumed({ replayed: 1, first_replayed: 8, replayed_ids: [8] }));
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f!.message).toBe(`server request r1 (sampling/createMessage) on g1 was stranded: g1 was closed at 2026-11-09T10:00:00.500Z while it was pending; ${replayedFate}`);
    // the request, its stream's close, the resumption that replayed it, the time-out
    expect(evidenceLines(f!)).toEqual([4, 5, 6, 8]);
    const why = fitted(f!.message)?.whyItBreaks;
    expect(why).toContain('a resumption replayed it on the resumed lineage under its old id');
    expect(why).not.toContain('never knew');
  });

  it('reads the replay from each way a log can show it: replayed_ids, first_replayed, an event.replayed, or the counted window', async () => {
    const shows: [string, LogLine[]][] = [
      ['replayed_ids', strandedThenResumed({ replayed: 1, replayed_ids: [8] })],
      ['first_replayed', strandedThenResumed({ replayed: 1, first_replayed: 8 })],
      ['event.replayed', strandedThenResumed({}, [{ ts: at(1002), kind: 'event.replayed', session: 'S1', stream: 'g2', event_id: 8 }])],
      ['replayed after Last-Event-ID', strandedThenResumed({ replayed: 1 })],
    ];
    for (const [how, lines] of shows) {
      const [f] = findingsOf(await analyzeLines(lines), 'orphaned-request');
      expect(f?.message, how).toContain(`; ${replayedFate}`);
      expect(evidenceLines(f!), how).toContain(6);
    }
  });

  it('says the client had received it where a resumption named its own event as Last-Event-ID', async () => {
    const report = await analyzeLines(strandedThenResumed({ last_event_id: 8, replayed: 0 }));
    const [f] = findingsOf(report, 'orphaned-request');
    expect(f!.message).toContain(
      '; the client had received it (its event was the Last-Event-ID of a resumption at 2026-11-09T10:00:01.000Z) but it was never answered, re-issued or cancelled before it timed out at 2026-11-09T10:01:00.000Z',
    );
    expect(evidenceLines(f!)).toEqual([4, 5, 6, 8]);
    expect(fitted(f!.message)?.whyItBreaks).toMatch(/^The client had the request: a resumption named its event as Last-Event-ID/);
  });

  it('says it of a request still pending when the log ends, and keeps its baseline key as the log grows', async () => {
    const lines = strandedThenResumed({ replayed: 1, replayed_ids: [8] });
    const keyAt = async (n: number) => findingFingerprint(findingsOf(await analyzeLines(lines.slice(0, n)), 'orphaned-request')[0]!);
    const pending = findingsOf(await analyzeLines(lines.slice(0, 7)), 'orphaned-request')[0]!;
    expect(pending.message).toMatch(/; it was replayed on the resumed lineage at 2026-11-09T10:00:01\.000Z but is still unanswered when the log ends$/);
    // stranded, then replayed, then timed out: one request, one key
    expect(new Set([await keyAt(5), await keyAt(7), await keyAt(8)]).size).toBe(1);
  });

  it('near miss: a replay that ended before its event, a replay after it timed out, a rejected resumption, another lineage: the plain fate', async () => {
    const plain = 'it timed out at 2026-11-09T10:01:00.000Z unanswered';
    const variants: [string, LogLine[]][] = [
      ['window short of it', strandedThenResumed({ last_event_id: 6, replayed: 1, first_replayed: 7 })],
      ['counted window short of it', [created, opened, event(50, 6), event(100, 7), withEvent(200, 'r1', 8), closed(500), resume(1000, { last_event_id: 6, replayed: 1 }), opened2, timedOut(60_000, 'r1')]],
      ['rejected', strandedThenResumed({ status: 409, decision: 'reject', replayed_ids: [8] })],
      ['after the time-out', [created, opened, event(100, 7), withEvent(200, 'r1', 8), closed(500), timedOut(900, 'r1'), resume(1000, { last_event_id: 7, replayed: 1, replayed_ids: [8] }), opened2]],
      ['another lineage', [
        created, opened, event(100, 7), withEvent(200, 'r1', 8), closed(500),
        { ts: at(600), kind: 'stream.opened', session: 'S1', stream: 'g5', via: 'get' }, event(700, 9, 'g5'),
        resume(1000, { stream: 'g5', last_event_id: 9, replayed: 1, replayed_ids: [8] }), opened2, timedOut(60_000, 'r1'),
      ]],
    ];
    for (const [what, lines] of variants) {
      const [f] = findingsOf(await analyzeLines(lines), 'orphaned-request');
      const fate = what === 'after the time-out' ? 'it timed out at 2026-11-09T10:00:00.900Z unanswered' : plain;
      expect(f?.message, what).toMatch(new RegExp(`; ${fate.replace(/[.()]/g, '\\$&')}$`));
      expect(fitted(f!.message), what).toBeUndefined();
    }
  });
});

describe('orphaned-request: each way a pending request is stranded', () => {
  const pendingThen = (cause: Record<string, unknown>) => [created, opened, request(100, 'r1'), cause, timedOut(30_000, 'r1')];
  const stranded = (how: string) =>
    `server request r1 (sampling/createMessage) on g1 was stranded: ${how}; it timed out at 2026-11-09T10:00:30.000Z unanswered`;

  it('flags a request pending when its stream was fenced: nothing more could be written to it', async () => {
    const report = await analyzeLines(pendingThen({ ts: at(500), kind: 'stream.fenced', session: 'S1', stream: 'g1' }));
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(stranded('g1 was fenced at 2026-11-09T10:00:00.500Z while it was pending'));
    expect(evidenceLines(f!)).toEqual([3, 4, 5]);
  });

  it('near miss: a fence of another stream of the session leaves the request on g1 unstranded', async () => {
    const report = await analyzeLines([
      created, opened, { ts: at(20), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' }, request(100, 'r1'),
      { ts: at(500), kind: 'stream.fenced', session: 'S1', stream: 'p1' }, timedOut(30_000, 'r1'),
    ]);
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
  });

  it('flags a request pending when its session was evicted', async () => {
    const report = await analyzeLines(pendingThen({ ts: at(500), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' }));
    const [f, ...rest] = findingsOf(report, 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(stranded('S1 ended at 2026-11-09T10:00:00.500Z while it was pending'));
    expect(evidenceLines(f!)).toEqual([3, 4, 5]);
  });

  it('near miss: the session evicted only after the request timed out', async () => {
    const report = await analyzeLines([
      created, opened, request(100, 'r1'), timedOut(30_000, 'r1'), { ts: at(31_000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout' },
    ]);
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
  });

  // log-format.md: accepted means a 2xx status, whatever decision a server logged it tried.
  const reconnect = (session: string) => ({ ts: at(500), kind: 'upgrade', session, last_event_id: null, decision: 'attach', status: 409, reason: 'stream_active' });

  it('flags a request pending when a reconnect of its session was refused 409, though logged as an attach', async () => {
    const [f, ...rest] = findingsOf(await analyzeLines(pendingThen(reconnect('S1'))), 'orphaned-request');
    expect(rest).toEqual([]);
    expect(f?.message).toBe(stranded('a reconnect of S1 was rejected (409) at 2026-11-09T10:00:00.500Z while it was pending'));
  });

  it('near miss: the same refused reconnect of another session', async () => {
    const report = await analyzeLines([{ ts: at(0), kind: 'session.created', session: 'S2', principal: 'bob' }, ...pendingThen(reconnect('S2'))]);
    expect(findingsOf(report, 'orphaned-request')).toEqual([]);
  });
});
