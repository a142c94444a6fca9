import { describe, expect, it } from 'vitest';
import { RETENTION_CAUSES, truncationCauses } from '../../src/detect/rules/silent-truncation.js';
import { DEFAULT_DETECT_OPTIONS } from '../../src/detect/types.js';
import { ReconnectFacts } from '../../src/detect/facts/reconnect-facts.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { analyzeLines, at, evidenceLines, findingsOf, workspaceOf, type LogLine } from '../helpers/logs.js';

const RULE = 'silent-truncation';

const created = { ts: at(0), kind: 'session.created', session: 'S1', principal: 'alice' };
const opened = { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' };
const sent = (ms: number, id: number | string, stream = 'g1', session = 'S1') => ({ ts: at(ms), kind: 'event.sent', session, stream, event_id: id });
const resume = (ms: number, fields: Record<string, unknown>) => ({
  ts: at(ms),
  kind: 'upgrade',
  session: 'S1',
  stream: 'g1',
  new_stream: 'g2',
  decision: 'resume',
  status: 200,
  reemitted: 0,
  ...fields,
});

describe('silent-truncation', () => {
  it('flags a replay shorter than what the stream sent after Last-Event-ID, naming the missing ids', async () => {
    const report = await analyzeLines([
      created, // 1
      opened, // 2
      sent(1000, 5), // 3
      sent(1100, 6), // 4
      sent(1200, 7), // 5
      sent(1300, 8), // 6
      resume(2000, { last_event_id: 5, replayed: 1, first_replayed: 6 }), // 7
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event 5 on g1 but replayed 1 of 3 events sent after it (missing events 7 and 8)');
    // the position, every event it should have replayed, and the upgrade
    expect(evidenceLines(f!)).toEqual([3, 4, 5, 6, 7]);
  });

  it('names one missing event as an event, not as a count ("missing event 8", not "8 missing")', async () => {
    const report = await analyzeLines([created, opened, sent(1000, 6), sent(1100, 7), sent(1200, 8), resume(2000, { last_event_id: 6, replayed: 1, first_replayed: 7 })]);
    expect(findingsOf(report, RULE).map((f) => f.message)).toEqual([expect.stringContaining('but replayed 1 of 2 events sent after it (missing event 8)')]);
  });

  it('flags a resumption from a position a buffer.trimmed had already evicted, even with a full-looking replay', async () => {
    const report = await analyzeLines([
      created, // 1
      opened, // 2
      sent(1000, 5), // 3
      sent(1100, 6), // 4
      sent(1200, 7), // 5
      { ts: at(1500), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 7 }, // 6
      resume(2000, { last_event_id: 5, replayed: 2, first_replayed: 6 }), // 7
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('trimmed to 7');
    expect(f!.message).toContain('event 5 was no longer retained');
    expect(evidenceLines(f!)).toEqual([3, 6, 7]);
  });

  it('flags a replay that began past the event sent right after Last-Event-ID', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(1000, 'a'), // 3
      sent(1100, 'b'), // 4
      sent(1200, 'c'), // 5
      resume(2000, { last_event_id: 'a', replayed: 2, first_replayed: 'c' }), // 6
    ]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('the replay started at c, skipping b');
    // opaque ids: the order comes from the emission lines of a, b and c
    expect(evidenceLines(f!)).toEqual([3, 4, 5, 6]);
  });

  it('leads with one cause and names the others when a replay is both short and late', async () => {
    const report = await analyzeLines([
      created,
      opened,
      sent(1000, 5), // 3
      sent(1100, 6), // 4
      sent(1200, 7), // 5
      sent(1300, 8), // 6
      resume(2000, { last_event_id: 5, replayed: 1, first_replayed: 8 }), // 7
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('replayed 1 of 3 events sent after it (missing events 6 and 7); also the replay started at 8');
    expect(evidenceLines(f!)).toEqual([3, 4, 5, 6, 7]);
  });

  it('flags a resumption after the session log was evicted, but not when the eviction kept the log', async () => {
    const log = (logEvicted: boolean | undefined): LogLine[] => [
      created,
      opened,
      sent(1000, 5), // 3
      { ts: at(1500), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout', ...(logEvicted !== undefined && { log_evicted: logEvicted }) }, // 4
      resume(2000, { last_event_id: 5, replayed: 0 }), // 5
    ];
    const [f] = findingsOf(await analyzeLines(log(undefined)), RULE);
    expect(f!.message).toContain("S1's event log was evicted");
    expect(evidenceLines(f!)).toEqual([3, 4, 5]);
    expect(findingsOf(await analyzeLines(log(false)), RULE)).toEqual([]);
  });

  it('does not flag complete replays: an earlier trim, other streams, later events and a resumed lineage', async () => {
    const report = await analyzeLines([
      created,
      opened,
      { ts: at(20), kind: 'stream.opened', session: 'S1', stream: 'p1', via: 'post' },
      sent(1000, 5),
      sent(1100, 6),
      sent(1150, 90, 'p1'), // another stream of the session: not in g1's replay window
      sent(1200, 7),
      { ts: at(1300), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 4 }, // 5 still retained
      resume(2000, { last_event_id: 5, replayed: 2, first_replayed: 6 }),
      sent(2100, 8, 'g2'), // after the upgrade, on the resumed lineage
      resume(3000, { last_event_id: 8, stream: 'g2', new_stream: 'g3', replayed: 0 }),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  // Two nodes share a session store: a writes g1 (events 1-5 at 1-5 s, closed at 5.5 s); the client resumes
  // from event 3 on b, whose clock runs `behindMs` behind, at a's 6 s. b then writes 6 and 7 on g2.
  describe('a resumption on a node whose clock runs behind the stream\'s', () => {
    const acrossSkew = (behindMs: number, replayedIds: number[], extra: LogLine[] = []): LogLine[] => [
      { ...created, node: 'a' }, // 1
      { ...opened, node: 'a' }, // 2
      ...[1, 2, 3, 4, 5].map((id) => ({ ...sent(id * 1000, id), node: 'a' })), // 3-7
      { ts: at(5500), kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error', node: 'a' }, // 8
      { ...resume(6000 - behindMs, { last_event_id: 3, replayed: replayedIds.length, first_replayed: replayedIds[0], replayed_ids: replayedIds }), node: 'b' }, // 9
      { ts: at(6001 - behindMs), kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get', node: 'b' }, // 10
      { ...sent(7000 - behindMs, 6, 'g2'), node: 'b' }, // 11
      { ...sent(8000 - behindMs, 7, 'g2'), node: 'b' }, // 12
      ...extra,
    ];

    it.each([0, 1500, 3000, 8000])('judges the stream up to the last replayed event as before the resumption (%i ms behind)', async (behindMs) => {
      const report = await analyzeLines(acrossSkew(behindMs, [5]));
      const [f, ...rest] = findingsOf(report, RULE);
      expect(rest).toEqual([]);
      // as without skew: the replay proves event 5 sent before it, and a's clock orders event 4 before event 5
      expect(f!.message).toBe('resumed S1 from event 3 on g1 but replayed 1 of 2 events sent after it (missing event 4); also the replay started at 5');
      expect(evidenceLines(f!).sort((x, y) => x - y)).toEqual([5, 6, 7, 9]);
      expect(findingsOf(report, 'write-to-superseded-stream')).toEqual([]);
    });

    it.each([3000, 8000, 12_000])('near miss: a complete replay is no truncation, and its position is placed (%i ms behind)', async (behindMs) => {
      const report = await analyzeLines(acrossSkew(behindMs, [4, 5]));
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
    });

    it('near miss: the stream\'s writes after the last replayed event are not in the window (they are late writes)', async () => {
      const report = await analyzeLines(acrossSkew(3000, [4, 5], [{ ...sent(5200, 9), node: 'a' }]));
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(findingsOf(report, 'write-to-superseded-stream').map((f) => f.message)).toEqual([expect.stringContaining('(event 9)')]);
    });
  });

  // log-format.md: "only where an id was never seen emitted does the analyzer fall back to comparing
  // ids that are integers or strings of digits numerically".
  describe('a log that starts after the session was created', () => {
    const midSession: LogLine[] = [sent(1000, 500), sent(1100, 501), { ts: at(2000), kind: 'buffer.trimmed', session: 'S1', stream: 'g1', oldest_retained: 495 }];

    it('flags a resumption from an id a trim had passed, compared by number', async () => {
      const report = await analyzeLines([...midSession, resume(3000, { last_event_id: 490, replayed: 2, first_replayed: 500 })]);
      const [f, ...rest] = findingsOf(report, RULE);
      expect(rest).toEqual([]);
      expect(f!.message).toContain('from event 490 on g1 although the buffer of g1 had been trimmed to 495');
      expect(evidenceLines(f!)).toEqual([3, 4]);
    });

    it('is not knowable for an id at or after the trim, or a trim of another stream', async () => {
      const kept = await analyzeLines([...midSession, resume(3000, { last_event_id: 497, replayed: 2, first_replayed: 500 })]);
      expect(findingsOf(kept, RULE)).toEqual([]);
      expect(kept.not_knowable.filter((n) => n.rule === RULE)).toHaveLength(1);
      const other = await analyzeLines([...midSession, resume(3000, { last_event_id: 490, stream: 'g7', replayed: 2, first_replayed: 500 })]);
      expect(findingsOf(other, RULE)).toEqual([]);
    });

    it('leaves an id the session never sent to phantom-event-id when the log holds its creation', async () => {
      const report = await analyzeLines([created, opened, ...midSession, resume(3000, { last_event_id: 490, replayed: 2, first_replayed: 500 })]);
      expect(findingsOf(report, RULE)).toEqual([]);
    });
  });

  describe('an id only an earlier incarnation sent', () => {
    const lines = (logEvicted: boolean): LogLine[] => [
      created,
      opened,
      sent(1000, 5),
      { ts: at(2000), kind: 'session.evicted', session: 'S1', reason: 'idle_timeout', log_evicted: logEvicted },
      { ts: at(3000), kind: 'session.created', session: 'S1', principal: 'alice' },
      resume(4000, { last_event_id: 5, replayed: 0 }),
    ];

    it('flags a resumption from it after the eviction dropped that log', async () => {
      const [f, ...rest] = findingsOf(await analyzeLines(lines(true)), RULE);
      expect(rest).toEqual([]);
      expect(f!.message).toContain('from event 5, which an earlier incarnation of S1 sent, although that event log was evicted');
      expect(evidenceLines(f!)).toEqual([3, 4, 6]);
    });

    it('does not flag it when the eviction kept the log', async () => {
      expect(findingsOf(await analyzeLines(lines(false)), RULE)).toEqual([]);
    });
  });

  it('is not knowable for an upgrade that did not log its replayed counter', async () => {
    const report = await analyzeLines([created, opened, sent(1000, 5), sent(1100, 6), resume(2000, { last_event_id: 5 })]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const nk = report.not_knowable.filter((n) => n.rule === RULE);
    expect(nk).toHaveLength(1);
    expect(nk[0]!.session).toBe('S1');
    expect(nk[0]!.reason).toContain('replayed counter is absent');
  });

  describe('proxy-only sessions', () => {
    const get = (ms: number, headers: Record<string, string>, sse?: (string | number)[]) => ({
      ts: at(ms),
      kind: 'http',
      method: 'GET',
      path: '/mcp',
      status: 200,
      req_headers: headers,
      resp_headers: { 'content-type': 'text/event-stream' },
      ...(sse && { sse_event_ids: sse }),
    });

    it('flags a replay whose first SSE id skips events the proxy saw sent after Last-Event-ID', async () => {
      const report = await analyzeLines([
        get(0, { 'mcp-session-id': 'P1' }, [4, 5, 6, 7]), // 1
        get(5000, { 'mcp-session-id': 'P1', 'last-event-id': '5' }, [7, 8]), // 2
      ]);
      const [f] = findingsOf(report, RULE);
      expect(f!.session).toBe('P1');
      expect(f!.message).toContain('started at 7, skipping 6');
      expect(f!.message).toContain('proxy log only');
      expect(evidenceLines(f!)).toEqual([1, 2]);
    });

    it('is not knowable when the replay the proxy saw began where it should: the retention is not visible', async () => {
      const report = await analyzeLines([get(0, { 'mcp-session-id': 'P1' }, [4, 5, 6]), get(5000, { 'mcp-session-id': 'P1', 'last-event-id': '5' }, [6, 7])]);
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([
        { rule: RULE, session: 'P1', reason: expect.stringMatching(/began where it should, but whether the server still retained event 5/) },
      ]);
    });

    it('is not knowable when the proxy did not record the SSE ids of the replay', async () => {
      const report = await analyzeLines([get(0, { 'mcp-session-id': 'P1' }, [4, 5, 6]), get(5000, { 'mcp-session-id': 'P1', 'last-event-id': '5' })]);
      expect(findingsOf(report, RULE)).toEqual([]);
      const nk = report.not_knowable.filter((n) => n.rule === RULE);
      expect(nk.map((n) => n.session)).toEqual(['P1']);
      expect(nk[0]!.reason).toMatch(/proxy log only: .*replay count and the server's retention could not be seen/);
    });
  });

  describe('what-if retention', () => {
    // Event 5 is 60 s old at the reconnect; the server logged no trim and replayed everything.
    const lines: LogLine[] = [created, opened, sent(1000, 5), sent(2000, 6), sent(3000, 7), resume(61_000, { last_event_id: 5, replayed: 2, first_replayed: 6 })];

    async function causesUnder(retention: typeof DEFAULT_DETECT_OPTIONS.retention) {
      const ws = await workspaceOf(lines);
      try {
        deriveTimeline(ws.db);
        const opts = { ...DEFAULT_DETECT_OPTIONS, retention };
        return truncationCauses(ws.db, opts, ReconnectFacts.of(ws.db, opts)).truncations.map((t) => t.causes);
      } finally {
        ws.db.close();
      }
    }

    it('judges retention by age and count instead of the logged trims', async () => {
      expect(await causesUnder('as-logged')).toEqual([]);
      expect(await causesUnder({ maxAgeMs: 120_000 })).toEqual([]);
      expect(await causesUnder({ maxAgeMs: 30_000 })).toEqual([['max-age']]);
      expect(await causesUnder({ maxEvents: 1 })).toEqual([['max-events']]);
      // two events followed event 5: a buffer of the last 2 holds 6 and 7, no longer 5; one of 3 still holds it
      expect(await causesUnder({ maxEvents: 2 })).toEqual([['max-events']]);
      expect(await causesUnder({ maxEvents: 3 })).toEqual([]);
      expect([...RETENTION_CAUSES]).toEqual(expect.arrayContaining(['max-age', 'max-events', 'trimmed', 'log-evicted']));
      expect(RETENTION_CAUSES.has('short-replay')).toBe(false);
    });

    it('reports the retention cause in the finding message through the whole pipeline', async () => {
      const report = await analyzeLines(lines, { retention: { maxAgeMs: 30_000 } });
      const [f] = findingsOf(report, RULE);
      expect(f!.message).toContain('60 s after it was sent, beyond a retention of 30 s');
      expect(evidenceLines(f!)).toEqual([3, 6]);
    });
  });
});

describe('silent-truncation: a resumption that logged no status', () => {
  const lines = (status: Record<string, unknown>) => [
    created,
    opened,
    sent(1000, 5),
    sent(1100, 6),
    sent(1200, 7),
    { ...resume(2000, { last_event_id: 5, replayed: 1, first_replayed: 6 }), ...status },
  ];

  it('is not knowable, saying so, instead of passing: whether it was accepted is not in the log', async () => {
    const { status: _, ...noStatus } = resume(2000, { last_event_id: 5, replayed: 1, first_replayed: 6 });
    const report = await analyzeLines([created, opened, sent(1000, 5), sent(1100, 6), sent(1200, 7), noStatus]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([
      { rule: RULE, session: 'S1', reason: `the resumption at ${at(2000)} logged no status: whether it was accepted, and its replay then complete, cannot be told` },
    ]);
  });

  it('near miss: with a status it is judged (a finding at 2xx, nothing at 409), and nothing is not knowable', async () => {
    const accepted = await analyzeLines(lines({ status: 200 }));
    expect(findingsOf(accepted, RULE)).toHaveLength(1);
    const rejected = await analyzeLines(lines({ status: 409, decision: 'reject', new_stream: null }));
    expect(findingsOf(rejected, RULE)).toEqual([]);
    for (const report of [accepted, rejected]) expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });
});

// A write to a stream an accepted upgrade had already superseded is write-to-superseded-stream's: "a buffer no live
// lineage replays". A later resumption of that lineage does not owe it (differential review, problem 3).
describe('silent-truncation: late writes to a superseded ancestor stream', () => {
  const closed = (ms: number, stream: string) => ({ ts: at(ms), kind: 'stream.closed', session: 'S1', stream, reason: 'error' });
  const unattached = (ms: number, id: number) => ({ ...sent(ms, id, 'g1'), attached: false });
  const lines = (last: Record<string, unknown>, extra: LogLine[] = []) => [
    created, // 1
    opened, // 2
    sent(200, 1), // 3
    closed(300, 'g1'), // 4
    resume(1000, { last_event_id: 1, replayed: 0 }), // 5: g1 → g2
    sent(1100, 2, 'g2'), // 6
    unattached(1200, 3), // 7: to g1, after the resume superseded it
    ...extra,
    closed(1300, 'g2'),
    resume(2000, { stream: 'g2', new_stream: 'g3', last_event_id: 2, ...last }),
  ];

  it('does not count it missing from a resumption of the new stream, nor leave the replay not knowable for it', async () => {
    for (const last of [{ replayed: 0 }, {}]) {
      const report = await analyzeLines(lines(last));
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
      expect(findingsOf(report, 'write-to-superseded-stream').map((f) => evidenceLines(f))).toEqual([[5, 7]]);
    }
  });

  it('still counts an event the new stream sent beside it, citing that one only', async () => {
    const report = await analyzeLines(lines({ replayed: 0 }, [sent(1250, 4, 'g2')])); // 8
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe('resumed S1 from event 2 on g2 but replayed 0 of 1 event sent after it (missing event 4)');
    expect(evidenceLines(f!)).toEqual([6, 8, 10]);
    const uncounted = await analyzeLines(lines({}, [sent(1250, 4, 'g2')]));
    expect(uncounted.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason)).toEqual([
      `how many events the resumption at ${at(2000)} from event 2 replayed (1 event had been sent after it) the upgrade did not log: the replayed counter is absent`,
    ]);
  });

  // read as the stream or as its lineage, a write to the very stream resumed was sent on it after Last-Event-ID
  it('near miss: a resumption of the ancestor itself still owes its events, before its supersession and after', async () => {
    const report = await analyzeLines([
      created, // 1
      opened, // 2
      sent(200, 1), // 3
      sent(300, 2), // 4: on g1 before the resume superseded it
      closed(400, 'g1'), // 5
      resume(1000, { last_event_id: 2, replayed: 0 }), // 6: g1 → g2, complete
      unattached(1200, 3), // 7: late, to g1
      resume(2000, { new_stream: 'g3', last_event_id: 1, replayed: 0 }), // 8: the client resumes g1 from 1 again
    ]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toBe('resumed S1 from event 1 on g1 but replayed 0 of 2 events sent after it (missing events 2 and 3)');
    expect(evidenceLines(f!)).toEqual([3, 4, 7, 8]);
  });
});
