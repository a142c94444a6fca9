import { describe, expect, it } from 'vitest';
import { LiveSession } from '../../src/live/session.js';
import { openDb } from '../../src/store/db.js';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';
import { ruleOf } from '../../src/detect/rules/index.js';

// stranded-response (rules.md v2): a response written only for replay that no
// resumption of its stream, from a position before it, ever delivered.

const V = '2025-11-25';
const created = (ms = 0, session = 'S') => ({ ts: at(ms), kind: 'session.created', session, principal: 'alice', protocol_version: V });
const opened = (ms: number, stream: string, via = 'post') => ({ ts: at(ms), kind: 'stream.opened', session: 'S', stream, via });
const sent = (ms: number, stream: string, eventId: string | number, extra: Record<string, unknown> = {}) => ({
  ts: at(ms), kind: 'event.sent', session: 'S', stream, event_id: eventId, ...extra,
});
const priming = (ms: number, stream: string, eventId: string) => sent(ms, stream, eventId, { priming: true });
const response = (ms: number, stream: string, eventId: string | number, extra: Record<string, unknown> = {}) =>
  sent(ms, stream, eventId, { rpc_kind: 'response', rpc_id: 1, attached: false, ...extra });
const closed = (ms: number, stream: string, reason = 'poll') => ({
  ts: at(ms), kind: 'stream.closed', session: 'S', stream, reason, ...(reason === 'poll' && { retry_ms: 1000 }),
});
const resume = (ms: number, lastEventId: string | number, stream: string, newStream: string, extra: Record<string, unknown> = {}) => ({
  ts: at(ms), kind: 'upgrade', session: 'S', last_event_id: lastEventId, stream, new_stream: newStream, decision: 'resume',
  status: 200, replayed: 1, reemitted: 0, principal: 'alice', ...extra,
});
const terminated = (ms: number) => ({ ts: at(ms), kind: 'session.terminated', session: 'S', reason: 'client_delete' });
/** Another session's record: the log goes on until then. */
const logGoesOnUntil = (ms: number) => created(ms, 'other');

/** A POST stream with a priming event, closed for polling, its response stored for replay (lines 1-5). */
const polled: LogLine[] = [
  created(),
  { ts: at(10), kind: 'call', session: 'S', rpc_id: 1, method: 'tools/call', tool: 'slow', args_hash: 'h1', status: 200 },
  opened(11, 'p1'),
  priming(12, 'p1', 'e0'),
  closed(13, 'p1'),
  response(500, 'p1', 'e1'),
];

const stranded = (report: Awaited<ReturnType<typeof analyzeLines>>) => findingsOf(report, 'stranded-response');
const notKnowable = (report: Awaited<ReturnType<typeof analyzeLines>>) => report.not_knowable.filter((n) => n.rule === 'stranded-response');

describe('stranded-response: a stream that carried no event id', () => {
  const noPriming: LogLine[] = [created(), opened(11, 'p1'), closed(13, 'p1'), response(500, 'p1', 'e1')];

  it('is stranded at once: the client holds no position to resume from', async () => {
    // The log ends 0.5 s after the write: no window to wait out, no resumption can help.
    const report = await analyzeLines(noPriming);
    expect(report.summary.rejected_lines).toBe(0);
    const [f, ...rest] = stranded(report);
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ rule: 'stranded-response', severity: 'error', session: 'S', at: at(500) });
    expect(f!.message).toContain('the response to request 1 (event e1 on p1)');
    expect(f!.message).toContain('no client can ask for it: it is stranded at once');
    // the stream's opening and close with nothing between, and the stored response
    expect(evidenceLines(f!)).toEqual([2, 3, 4]);
    expect(notKnowable(report)).toEqual([]);
  });

  it('stays stranded whatever follows: a later resumption cannot name a position before it', async () => {
    const report = await analyzeLines([...noPriming, resume(1500, 'e1', 'p1', 'p2'), logGoesOnUntil(120_000)]);
    expect(stranded(report).map((f) => f.session)).toEqual(['S']);
  });

  it('counts a response written after its stream closed, attached or not', async () => {
    const report = await analyzeLines([created(), opened(11, 'p1'), closed(13, 'p1', 'error'), response(500, 'p1', 'e1', { attached: undefined })]);
    const [f] = stranded(report);
    expect(f!.message).toContain('was written after p1 closed at 2026-11-09T10:00:00.013Z (error), for replay only');
    expect(f!.message).toContain('stranded at once');
  });

  it('takes no event stored for replay only as a position: the client never got its id', async () => {
    const report = await analyzeLines([
      // e0 was stored while no body was live (before the close was logged), e1 after the close
      created(), opened(11, 'p1'), sent(12, 'p1', 'e0', { rpc_kind: 'notification', attached: false }), closed(13, 'p1'), response(500, 'p1', 'e1'),
    ]);
    expect(stranded(report).map((f) => f.message)).toEqual([expect.stringContaining('stranded at once')]);
  });

  it('counts a response stored on a stream the log never shows open (an SDK stream no body serves)', async () => {
    const report = await analyzeLines([created(), response(500, 'unbound:_GET_stream', 'e1')]);
    expect(stranded(report)).toHaveLength(1);
  });

  it('near miss: the priming event gives the client a position, and it resumes from it', async () => {
    const report = await analyzeLines([...polled, resume(1013, 'e0', 'p1', 'p2', { first_replayed: 'e1' }), opened(1014, 'p2', 'get')]);
    expect(stranded(report)).toEqual([]);
    expect(notKnowable(report)).toEqual([]);
  });

  it('near miss: an event written for replay only is no position the client holds, but a delivered one on the lineage is', async () => {
    // p1 carried nothing; its resumption p2 delivered e5 before closing for polling: e5 is a position before the response
    const report = await analyzeLines([
      created(), opened(11, 'p1'), priming(12, 'p1', 'e0'), closed(13, 'p1'),
      resume(1013, 'e0', 'p1', 'p2', { replayed: 0 }), sent(1020, 'p2', 'e5', { rpc_kind: 'notification' }), closed(1030, 'p2'),
      response(1500, 'p2', 'e6'),
      resume(2100, 'e5', 'p2', 'p3', { first_replayed: 'e6' }),
    ]);
    expect(stranded(report)).toEqual([]);
  });
});

describe('stranded-response: a stream that carried an event id', () => {
  it('fires when the session ends with no resumption', async () => {
    const report = await analyzeLines([...polled, terminated(2000)]);
    const [f, ...rest] = stranded(report);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('was written after p1 closed at 2026-11-09T10:00:00.013Z (poll), for replay only');
    expect(f!.message).toContain('S ended at 2026-11-09T10:00:02.000Z with no resumption of that stream from before it');
    expect(evidenceLines(f!)).toEqual([5, 6, 7]);
  });

  it('fires when the log goes on past the stranding window with no resumption', async () => {
    const report = await analyzeLines([...polled, logGoesOnUntil(90_500)]);
    const [f] = stranded(report);
    expect(f!.message).toContain('no resumption of that stream from before it followed in the 90 s the log goes on: it was never delivered');
    expect(notKnowable(report)).toEqual([]);
  });

  it('fires on attached: false on a stream that is still open, once the window has passed', async () => {
    const report = await analyzeLines([created(), opened(11, 'p1'), priming(12, 'p1', 'e0'), response(500, 'p1', 'e1'), logGoesOnUntil(90_000)]);
    const [f] = stranded(report);
    expect(f!.message).toContain('was stored for replay only (attached: false)');
    expect(evidenceLines(f!)).toEqual([4]);
  });

  it('fires when the only resumptions come too late, start after the response, resume another stream, or are rejected', async () => {
    const cases: LogLine[][] = [
      [terminated(800), resume(1013, 'e0', 'p1', 'p2')],
      [resume(1013, 'e1', 'p1', 'p2')],
      [opened(20, 'g1', 'get'), sent(30, 'g1', 'g-7'), resume(1013, 'g-7', 'g1', 'g2')],
      [resume(1013, 'e0', 'p1', 'p2', { status: 409, decision: 'reject', replayed: undefined })],
    ];
    for (const tail of cases) {
      const report = await analyzeLines([...polled, ...tail, logGoesOnUntil(90_000)]);
      expect(stranded(report).map((f) => f.session), JSON.stringify(tail)).toEqual(['S']);
    }
  });

  it('near miss: a resumption from before it at any time while the session lives delivers it, inside the window or not', async () => {
    for (const ms of [1013, 75_000]) {
      const report = await analyzeLines([...polled, resume(ms, 'e0', 'p1', 'p2'), logGoesOnUntil(90_000)]);
      expect(stranded(report), `resumed at ${ms}`).toEqual([]);
    }
  });

  it('near miss: a resumption from an id the log never shows sent, on that stream, is taken as a position before it', async () => {
    // the server logs no priming event; the client resumes p1 from the id it got
    const lines = (last: number) => [created(), opened(11, 'p1'), closed(13, 'p1'), response(500, 'p1', 8), resume(1013, last, 'p1', 'p2'), logGoesOnUntil(90_000)];
    expect(stranded(await analyzeLines(lines(7)))).toEqual([]);
    // numeric ids: a Last-Event-ID at or after the response is no position before it
    expect(stranded(await analyzeLines(lines(8)))).toHaveLength(1);
  });

  it('near miss: a response delivered on a live stream, or on a stream id the server opened again', async () => {
    const live = await analyzeLines([created(), opened(11, 'p1'), priming(12, 'p1', 'e0'), response(500, 'p1', 'e1', { attached: undefined }), logGoesOnUntil(90_000)]);
    expect(stranded(live)).toEqual([]);
    const reopened = await analyzeLines([
      created(), opened(11, 'p1'), priming(12, 'p1', 'e0'), closed(13, 'p1'), opened(400, 'p1'), response(500, 'p1', 'e1', { attached: undefined }), logGoesOnUntil(90_000),
    ]);
    expect(stranded(reopened)).toEqual([]);
  });
});

describe('stranded-response in a long polling session', () => {
  // One lineage polled round after round (p1, then p2, p3 opened by resumptions): each stored response is
  // judged by the resumptions after it and before the session's next end, whatever came before.
  const rounds: LogLine[] = [
    created(), opened(11, 'p1'), priming(12, 'p1', 'e0'), closed(13, 'p1'),
    response(500, 'p1', 'e1'), resume(600, 'e0', 'p1', 'p2'), closed(700, 'p2'),
    response(800, 'p2', 'e2'), resume(900, 'e2', 'p2', 'p3'), closed(950, 'p3'),
    response(1000, 'p3', 'e3'),
  ];

  it('fires on each response no later resumption of its lineage reached before the session ended', async () => {
    const report = await analyzeLines([...rounds, terminated(1100), resume(1200, 'e0', 'p3', 'p4'), logGoesOnUntil(90_000)]);
    // e1 was replayed from e0; e2 only by a resumption from itself, and from e0 after the end; e3 only after the end
    expect(stranded(report).map((f) => f.at)).toEqual([at(800), at(1000)]);
    expect(stranded(report).every((f) => /ended at/.test(f.message))).toBe(true);
  });

  it('near miss: one resumption from before them, while the session lives, delivers every response after it', async () => {
    expect(stranded(await analyzeLines([...rounds, resume(1050, 'e0', 'p3', 'p4'), terminated(1100), logGoesOnUntil(90_000)]))).toEqual([]);
  });

  it('takes the smallest of several ids the log never shows sent, and any id that is not a number', async () => {
    const lines = (...ids: (string | number)[]) => [
      created(), opened(11, 'p1'), closed(13, 'p1'), response(500, 'p1', 8),
      ...ids.map((id, i) => resume(1013 + i, id, 'p1', `r${i}`)), logGoesOnUntil(90_000),
    ];
    expect(stranded(await analyzeLines(lines(9, 8)))).toHaveLength(1);
    expect(stranded(await analyzeLines(lines(9, 7)))).toEqual([]);
    expect(stranded(await analyzeLines(lines(9, 'x7')))).toEqual([]);
  });
});

describe('stranded-response at the end of the log', () => {
  it('is not knowable when the log ends within the stranding window with the session live', async () => {
    const report = await analyzeLines([...polled, logGoesOnUntil(10_500)]);
    expect(stranded(report)).toEqual([]);
    expect(notKnowable(report)).toEqual([
      {
        rule: 'stranded-response',
        session: 'S',
        reason:
          'the log ends 10 s after the response to request 1 was stored for replay on p1 at 2026-11-09T10:00:00.500Z, within the 60 s stranding window: a resumption may still deliver it',
      },
    ]);
  });

  it('judges with the configured window', async () => {
    const report = await analyzeLines([...polled, logGoesOnUntil(10_500)], { strandingWindowMs: 5_000 });
    expect(stranded(report)).toHaveLength(1);
    expect(notKnowable(report)).toEqual([]);
  });

  it('needs no window once the session has ended', async () => {
    const report = await analyzeLines([...polled, terminated(1000)]);
    expect(stranded(report)).toHaveLength(1);
    expect(notKnowable(report)).toEqual([]);
  });
});

describe('stranded-response without a session (2026-07-28)', () => {
  const S = '2026-07-28';
  const stateless = (attached: boolean | undefined, closeFirst: boolean): LogLine[] => [
    { ts: at(10), kind: 'call', rpc_id: 1, method: 'tools/call', tool: 'slow', args_hash: 'h1', status: 200, principal: 'alice', protocol_version: S },
    { ts: at(11), kind: 'stream.opened', stream: 'p1', via: 'post', protocol_version: S },
    ...(closeFirst ? [{ ts: at(12), kind: 'stream.closed', stream: 'p1', reason: 'error', protocol_version: S }] : []),
    { ts: at(500), kind: 'event.sent', stream: 'p1', event_id: 'e1', rpc_kind: 'response', rpc_id: 1, protocol_version: S, ...(attached !== undefined && { attached }) },
  ];

  it('fires at once on a response stored for replay: that revision has no resumption', async () => {
    const report = await analyzeLines(stateless(undefined, true));
    expect(report.summary.rejected_lines).toBe(0);
    const [f] = stranded(report);
    expect(f).toMatchObject({ session: null });
    // 2026-07-28 Cancellation: the close cancels the request; the advice is to stop, not to keep it for a resumption
    expect(f!.message).toContain('it has no session, and at protocol 2026-07-28 the close of a response stream cancels its request (Cancellation)');
    expect(f!.message).not.toContain('never delivered');
    expect(fitted(f!.message)?.shouldHave).toContain('treat it as cancellation (2026-07-28 transports, Cancellation');
    expect(evidenceLines(f!)).toEqual([3, 4]);
    const [open] = stranded(await analyzeLines(stateless(false, false)));
    expect(open!.message).toContain('at protocol 2026-07-28 nothing resumes a stream');
  });

  it('words a response line that logs no version (it inherits its stream\'s) the same', async () => {
    const [call, open, written] = stateless(false, false) as Record<string, unknown>[];
    const report = await analyzeLines([call!, open!, { ...written!, protocol_version: undefined }]);
    expect(report.summary.rejected_lines).toBe(0);
    const [f] = stranded(report);
    expect(f!.message).toContain('it has no session, and at protocol 2026-07-28 nothing resumes a stream');
  });

  it('near miss: the response written to its live stream', async () => {
    const report = await analyzeLines(stateless(undefined, false));
    expect(stranded(report)).toEqual([]);
    expect(notKnowable(report)).toEqual([]);
  });
});

// 2025-03-26 and 2025-06-18 have no priming events and no polling: their server SHOULD NOT close the stream
// before the response (2025-03-26 §Sending Messages), which is the advice, not a priming event and a poll retry.
const fitted = (message: string) => ruleOf('stranded-response').explanation.fitted?.(message);

describe('stranded-response at a revision without priming or polling', () => {
  const log = (version: string) => [
    { ...created(), protocol_version: version },
    opened(11, 'p1'),
    closed(13, 'p1', 'server'),
    response(500, 'p1', 'e1'),
  ];

  it('names the revision and its clause, and advises keeping the stream open, not priming', async () => {
    for (const version of ['2025-03-26', '2025-06-18']) {
      const [f] = stranded(await analyzeLines(log(version)));
      expect(f!.message).toContain('p1 had carried no event id the client could resume from, so no client can ask for it: it is stranded at once');
      expect(f!.message).toContain(`; at protocol ${version}, which has no priming events or polling, the server SHOULD NOT close the stream before sending the response`);
      const advice = fitted(f!.message)!;
      expect(advice.shouldHave).toMatch(/^Keep the response stream open until the response is sent/);
      expect(advice.shouldHave).not.toMatch(/^Send an event id first/);
    }
  });

  it('near miss: at 2025-11-25 the message and the advice are the priming and polling ones', async () => {
    const [f] = stranded(await analyzeLines(log('2025-11-25')));
    expect(f!.message).toContain('could resume from (no priming event), so no client can ask for it');
    expect(f!.message).not.toContain('at protocol');
    expect(fitted(f!.message)).toBeUndefined();
  });
});

describe('stranded-response in live mode', () => {
  const lineOf = (l: LogLine) => (typeof l === 'string' ? l : JSON.stringify(l));
  const batch = (lines: LogLine[], first: number) => lines.map((l, i) => ({ line: first + i, text: lineOf(l) }));
  const strandedIn = (live: LiveSession) => live.book.all().filter((f) => f.rule === 'stranded-response');

  it('judges a stored response again once the log has gone past the window, though its session is not touched', () => {
    const db = openDb(':memory:');
    try {
      const live = new LiveSession(db);
      live.addLines('app.ndjson', batch(polled, 1));
      live.detect();
      expect(strandedIn(live)).toEqual([]);
      live.addLines('app.ndjson', batch([logGoesOnUntil(90_000)], polled.length + 1));
      live.detect();
      expect(strandedIn(live).map((f) => f.session)).toEqual(['S']);
    } finally {
      db.close();
    }
  });

  it('withdraws a finding a later resumption answers, and announces only what still stands', () => {
    const db = openDb(':memory:');
    try {
      let now = 0;
      const live = new LiveSession(db, { now: () => now, settleMs: 1000 });
      live.addLines('app.ndjson', batch([...polled, logGoesOnUntil(90_000)], 1));
      expect(live.detect().fresh.filter((f) => f.rule === 'stranded-response')).toEqual([]);
      expect(strandedIn(live)).toHaveLength(1);
      // the client comes back for it after all
      live.addLines('app.ndjson', batch([resume(95_000, 'e0', 'p1', 'p2')], polled.length + 2));
      live.detect();
      expect(strandedIn(live)).toEqual([]);
      now = 5000;
      expect(live.settle(true)).toEqual([]);
    } finally {
      db.close();
    }
  });
});
