import { describe, expect, it } from 'vitest';
import { analyzeLines, at, evidenceLines, findingsOf } from '../helpers/logs.js';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const request = (ms: number, id: string, method = 'sampling/createMessage') => ({
  ts: at(ms), kind: 'request.sent', session: 'S1', stream: 'g1', request_id: id, method,
});
const closed = { ts: at(900), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' };
const attach = (counters: Record<string, unknown>) => ({
  ts: at(1000), kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g2', decision: 'attach', status: 200, replayed: 0, ...counters,
});

describe('pending-not-reemitted', () => {
  it('flags an attach that re-emitted fewer pending requests than there were', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      request(200, 'r2', 'elicitation/create'),
      closed,
      attach({ reemitted: 0, cancelled: 0 }),
    ]);
    const [f, ...rest] = findingsOf(report, 'pending-not-reemitted');
    expect(rest).toHaveLength(0);
    expect(f?.session).toBe('S1');
    expect(f?.message).toContain('2 pending server requests');
    expect(f?.message).toContain('r1 sampling/createMessage');
    expect(f?.message).toContain('r2 elicitation/create');
    expect(f?.message).toContain('g2');
    // one pending request more than re-emitted + cancelled (0) proves it, with the attach
    expect(evidenceLines(f!)).toEqual([3, 6]);
  });

  it('needs one pending request more than the counters cover as evidence', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      request(200, 'r2'),
      request(300, 'r3'),
      closed,
      attach({ reemitted: 1, cancelled: 0 }),
    ]);
    const [f] = findingsOf(report, 'pending-not-reemitted');
    expect(f?.message).toContain('3 pending server requests');
    expect(f?.message).toMatch(/re-emitted 1 and cancelled 0: 2 left/);
    expect(evidenceLines(f!)).toEqual([3, 4, 7]);
  });

  // An SDK server sends a tool's sampling request on the POST stream of that call, which stays open until the
  // tool returns. rules.md counts it pending at an attach all the same (seed 000: a client that attaches without
  // Last-Event-ID may have restarted, and no longer reads that stream); the message says where it waits.
  const onPost = (ms: number, id: string) => ({ ...request(ms, id), stream: 'p1' });
  const postOpened = { ts: at(50), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' };

  it('counts a request on a POST stream still open at the attach, and says it waits there', async () => {
    const report = await analyzeLines([
      created,
      opened,
      postOpened,
      onPost(100, 'r1'),
      { ...closed, reason: 'client' },
      attach({ reemitted: 0, cancelled: 0 }),
      { ts: at(1200), kind: 'request.answered', session: 'S1', request_id: 'r1', status: 200 },
      { ts: at(1300), kind: 'stream.closed', session: 'S1', stream: 'p1', reason: 'server' },
    ]);
    const [f, ...rest] = findingsOf(report, 'pending-not-reemitted');
    expect(rest).toEqual([]);
    expect(f?.message).toContain('1 left on the POST stream it was sent on, still open, which a client that restarted no longer reads');
    expect(evidenceLines(f!)).toEqual([4, 6]);
  });

  /** r1 sent on the POST stream p1, r2 on the GET stream, p1 then closed as `close` says, at `version`; an attach re-emits neither. */
  const closedPostLog = (version: string, close: Record<string, unknown>) => [
    { ...created, protocol_version: version },
    opened,
    postOpened,
    onPost(100, 'r1'),
    request(150, 'r2'),
    { ts: at(500), kind: 'stream.closed', session: 'S1', stream: 'p1', ...close },
    closed,
    attach({ reemitted: 0, cancelled: 0 }),
  ];

  it('near miss for the wording: once that POST stream has ended (a close for polling does not end it), the request waits nowhere', async () => {
    const log = (reason: string) => closedPostLog('2025-11-25', { reason });
    const [ended] = findingsOf(await analyzeLines(log('error')), 'pending-not-reemitted');
    expect(ended?.message).toMatch(/2 left waiting on a stream the client no longer reads$/);
    const [polled] = findingsOf(await analyzeLines(log('poll')), 'pending-not-reemitted');
    expect(polled?.message).toContain('2 left where they were sent, 1 of them on a POST stream still open,');
  });

  it('takes a poll close at 2025-03-26 (a revision without polling) as the end of that POST stream', async () => {
    const log = (version: string) => closedPostLog(version, { reason: 'poll', retry_ms: 1000 });
    const [old] = findingsOf(await analyzeLines(log('2025-03-26')), 'pending-not-reemitted');
    expect(old?.message).toMatch(/2 left waiting on a stream the client no longer reads$/);
    const [polling] = findingsOf(await analyzeLines(log('2025-11-25')), 'pending-not-reemitted');
    expect(polling?.message).toContain('1 of them on a POST stream still open,');
  });

  it('counts only requests still pending at the attach (a 404 answer leaves one pending)', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      request(200, 'r2'),
      request(250, 'r3'),
      request(260, 'r4'),
      { ts: at(300), kind: 'request.answered', session: 'S1', request_id: 'r1', status: 200 },
      { ts: at(310), kind: 'request.cancelled', session: 'S1', request_id: 'r2' },
      { ts: at(320), kind: 'request.timed_out', session: 'S1', request_id: 'r3' },
      { ts: at(330), kind: 'request.answered', session: 'S1', request_id: 'r4', status: 404 },
      closed,
      attach({ reemitted: 1, cancelled: 0 }),
      // answered after the attach: it was pending at the attach, and was re-emitted
      { ts: at(1100), kind: 'request.answered', session: 'S1', request_id: 'r4', status: 200 },
    ]);
    expect(findingsOf(report, 'pending-not-reemitted')).toEqual([]);
  });

  it('does not flag an attach that cancelled what it did not re-emit', async () => {
    const report = await analyzeLines([created, opened, request(100, 'r1'), request(200, 'r2'), closed, attach({ reemitted: 1, cancelled: 1 })]);
    expect(findingsOf(report, 'pending-not-reemitted')).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === 'pending-not-reemitted')).toEqual([]);
  });

  it('does not count requests of an earlier incarnation of the session id', async () => {
    const report = await analyzeLines([
      created,
      opened,
      request(100, 'r1'),
      { ts: at(200), kind: 'session.terminated', session: 'S1', reason: 'client_delete' },
      { ts: at(300), kind: 'session.created', session: 'S1', principal: 'alice', incarnation: 'i-2' },
      attach({ reemitted: 0, cancelled: 0 }),
    ]);
    expect(findingsOf(report, 'pending-not-reemitted')).toEqual([]);
  });

  it('is not knowable when the attach logged no counters, or the log starts after the creation', async () => {
    const noCounters = await analyzeLines([created, opened, request(100, 'r1'), closed, attach({})]);
    expect(findingsOf(noCounters, 'pending-not-reemitted')).toEqual([]);
    expect(noCounters.not_knowable.filter((n) => n.rule === 'pending-not-reemitted')).toEqual([
      { rule: 'pending-not-reemitted', session: 'S1', reason: expect.stringMatching(/1 pending server request \(r1\).*no reemitted\/cancelled counter/) },
    ]);

    const lateStart = await analyzeLines([opened, closed, attach({ reemitted: 0, cancelled: 0 })]);
    expect(findingsOf(lateStart, 'pending-not-reemitted')).toEqual([]);
    expect(lateStart.not_knowable.filter((n) => n.rule === 'pending-not-reemitted')).toEqual([
      { rule: 'pending-not-reemitted', session: 'S1', reason: expect.stringMatching(/log starts after S1 was created/) },
    ]);
  });
});
