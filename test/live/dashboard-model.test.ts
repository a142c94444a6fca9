import { afterEach, describe, expect, it } from 'vitest';
import { LiveSession } from '../../src/live/session.js';
import type { InputLine } from '../../src/read/lines.js';
import { openDb, type Db } from '../../src/store/db.js';
import { detailLoader } from '../../src/tui/wire/detail.js';
import { LIVE_SILENCE_MS } from '../../src/live/losses.js';
import { DashboardModelSource } from '../../src/tui/wire/store-model.js';
import { intervalWidth, MAX_INTERVALS, SeriesCounter } from '../../src/tui/wire/series.js';
import { healthyLines, rec, violatingLine } from './support.js';

const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function inputLines(text: string, firstLine = 1): InputLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((t, i) => ({ line: firstLine + i, text: t }));
}

/** A live session and its dashboard model, fed batch by batch as `watch` feeds them. */
function harness(now: () => number = () => 0) {
  const db = openDb(':memory:');
  dbs.push(db);
  const live = new LiveSession(db, { now });
  const model = new DashboardModelSource(db, live.book, { sources: ['app.ndjson'], mode: 'live', now });
  let line = 1;
  return {
    db,
    live,
    model,
    feed(text: string) {
      const lines = inputLines(text, line);
      line += text.split('\n').filter(Boolean).length;
      live.addLines('app.ndjson', lines);
      const round = live.detect();
      model.refresh(round.sessions);
      return round;
    },
  };
}

const resume = (session: string, at: number, fields: Record<string, unknown> = {}) =>
  rec(at, { kind: 'upgrade', session, last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, ...fields });

describe('DashboardModelSource', () => {
  it('counts records, rejected and ignored lines, and findings by severity', () => {
    const h = harness();
    h.feed(healthyLines('S1') + 'not json\n' + '{"level":"info","msg":"listening"}\n' + violatingLine(10));
    const m = h.model.model();
    expect(m).toMatchObject({ mode: 'live', sources: ['app.ndjson'], records: 4, rejected: 1, ignored: 1 });
    expect(m.bySeverity.error).toBe(h.live.book.all().filter((f) => f.severity === 'error').length);
    expect(m.bySeverity.error).toBeGreaterThan(0);
  });

  it('lists the feed newest first, keyed so that a finding keeps its key across rounds', () => {
    const h = harness();
    h.feed(violatingLine(1000, 5));
    const firstKey = h.model.model().feed.find((f) => f.rule === 'event-id-without-session')!.key;
    h.feed(violatingLine(2000, 6));
    const feed = h.model.model().feed.filter((f) => f.rule === 'event-id-without-session');
    expect(feed.map((f) => f.at)).toEqual(['2026-11-09T10:00:02.000Z', '2026-11-09T10:00:01.000Z']);
    expect(feed[1]!.key).toBe(firstKey);
  });

  it('gives each session its state, streams, last decision triple, replay counters and findings', () => {
    const h = harness();
    h.feed(
      healthyLines('LIVE') +
        resume('LIVE', 10, { last_event_id: 1, replayed: 3, reemitted: 1 }) +
        healthyLines('DONE', 20) +
        rec(30, { kind: 'session.terminated', session: 'DONE' }) +
        healthyLines('TWICE', 40) +
        rec(50, { kind: 'session.created', session: 'TWICE', principal: 'alice' }) +
        rec(60, { kind: 'event.sent', session: 'MIDWAY', stream: 'g7', event_id: 9 }),
    );
    const rows = new Map(h.model.model().sessions.map((r) => [r.session, r]));
    expect(rows.get('LIVE')).toMatchObject({
      state: 'live',
      streams: 2,
      lastTriple: { lastEventId: '1', decision: 'resume', status: 200 },
      replayed: 3,
      reemitted: 1,
      lastSeen: '2026-11-09T10:00:00.010Z',
    });
    expect(rows.get('DONE')).toMatchObject({ state: 'ended', lastTriple: null });
    expect(rows.get('TWICE')).toMatchObject({ state: 'forked' });
    expect(rows.get('TWICE')!.findings).toBe(h.live.book.forSession('TWICE').length);
    expect(rows.get('TWICE')!.findings).toBeGreaterThan(0); // session-id-reuse
    expect(rows.get('MIDWAY')).toMatchObject({ state: 'unknown' });
    // Most recently active first.
    expect(h.model.model().sessions[0]!.session).toBe('MIDWAY');
  });

  it('hands out the same model until something changes, and a new one after', () => {
    const h = harness();
    h.feed(healthyLines('S1'));
    const a = h.model.model();
    expect(h.model.model()).toBe(a);
    h.feed(resume('S1', 10));
    const b = h.model.model();
    expect(b).not.toBe(a);
    expect(b.sessions[0]!.lastTriple?.decision).toBe('resume');
    expect(a.sessions[0]!.lastTriple).toBeNull();
  });

  it('charts decisions by class, replayed against re-emitted, and 404s per interval', () => {
    const h = harness();
    h.feed(
      healthyLines('S1') +
        resume('S1', 500, { replayed: 4 }) +
        rec(1500, { kind: 'upgrade', session: 'S1', last_event_id: null, new_stream: 'g3', decision: 'attach', status: 200, replayed: 0, reemitted: 2 }) +
        rec(1600, { kind: 'upgrade', session: 'S9', last_event_id: 3, decision: 'reject', status: 404, reason: 'session_not_found' }) +
        rec(2100, { kind: 'call', session: 'S9', rpc_id: 1, method: 'tools/call', status: 404 }),
    );
    const s = h.model.model().series;
    expect(s.labels).toEqual(['2026-11-09T10:00:00.000Z', '2026-11-09T10:00:01.000Z', '2026-11-09T10:00:02.000Z']);
    expect(s.decisions).toEqual({ resume: [1, 0, 0], attach: [0, 1, 0], fresh: [0, 0, 0], reject: [0, 1, 0] });
    expect(s.replayed).toEqual([4, 0, 0]);
    expect(s.reemitted).toEqual([0, 2, 0]);
    expect(s.http404).toEqual([0, 1, 1]);
  });

  it('reports the record rate over the last seconds of wall time in live mode', () => {
    let now = 0;
    const h = harness(() => now);
    h.feed(healthyLines('S1'));
    h.model.model();
    now = 2000;
    h.feed(healthyLines('S2', 10) + healthyLines('S3', 20));
    expect(h.model.model().ratePerSec).toBe(3);
  });
});

describe('SeriesCounter', () => {
  it('keeps every count when it widens the interval for a long log', () => {
    const c = new SeriesCounter();
    const hour = 3600_000;
    for (let t = 0; t <= 3 * hour; t += 60_000) c.add({ ts_ms: t, kind: 'upgrade', origin: 'server', decision: 'resume', status: 200, replayed: 1, reemitted: 0 });
    const s = c.series();
    expect(s.labels.length).toBeLessThanOrEqual(MAX_INTERVALS);
    expect(s.decisions.resume.reduce((a, b) => a + b, 0)).toBe(181);
    expect(s.replayed.reduce((a, b) => a + b, 0)).toBe(181);
    expect(s.http404.length).toBe(s.labels.length);
  });

  it('counts a 404 once: the proxy line, not the records inferred from it', () => {
    const c = new SeriesCounter();
    c.add({ ts_ms: 0, kind: 'http', origin: 'proxy', decision: null, status: 404, replayed: null, reemitted: null });
    c.add({ ts_ms: 0, kind: 'call', origin: 'proxy', decision: null, status: 404, replayed: null, reemitted: null });
    expect(c.series().http404).toEqual([1]);
  });

  it('picks the narrowest readable interval', () => {
    expect(intervalWidth(1)).toBe(1);
    expect(intervalWidth(120)).toBe(1);
    expect(intervalWidth(121)).toBe(2);
    expect(intervalWidth(3600)).toBe(30);
    expect(intervalWidth(86_400 * 365)).toBeGreaterThanOrEqual(86_400);
  });
});

describe('detailLoader', () => {
  it("shows a session's streams as lanes, every record with file:line, and its findings with the quoted evidence", () => {
    const h = harness();
    h.feed(healthyLines('S1') + rec(50, { kind: 'session.created', session: 'S1', principal: 'alice' }));
    const load = detailLoader(h.db, h.live.book, { revision: (s) => h.live.revision(s) });
    const d = load('S1')!;
    expect(d.session).toBe('S1');
    expect(d.incarnations).toHaveLength(2);
    expect(d.lanes).toEqual([{ stream: 'g1', via: 'get', state: 'open' }]);
    expect(d.rows.map((r) => [r.kind, r.lane, `${r.ref.file}:${r.ref.line}`])).toEqual([
      ['session.created', null, 'app.ndjson:1'],
      ['stream.opened', 'g1', 'app.ndjson:2'],
      ['event.sent', 'g1', 'app.ndjson:3'],
      ['session.created', null, 'app.ndjson:4'],
    ]);
    expect(d.rows[1]!.text).toBe('stream g1 opened via get');
    const reuse = d.findings.find((f) => f.rule === 'session-id-reuse')!;
    expect(reuse.evidence.length).toBeGreaterThan(0);
    for (const e of reuse.evidence) expect(e.text).toContain('"kind":"session.created"');
    // The evidence rows are coloured like their finding.
    expect(d.rows[3]!.severity).toBe('warning');
    expect(load('nobody')).toBeUndefined();
  });

  it("says of a dual writer's old stream that it was superseded while open, as `timeline` does (near miss: one closed before its resumption)", () => {
    const lanesOf = (closedBefore: boolean) => {
      const h = harness();
      h.feed(
        healthyLines('S1') +
          (closedBefore ? rec(5, { kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' }) : '') +
          rec(10, { kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 }) +
          rec(11, { kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get' }),
      );
      return detailLoader(h.db, h.live.book, { revision: (s) => h.live.revision(s) })('S1')!.lanes;
    };
    expect(lanesOf(false)[0]!.state).toMatch(/^superseded while open at \S+ by the upgrade to g2, app\.ndjson:\d+; never closed$/);
    expect(lanesOf(true)[0]!.state).toBe('closed: error');
  });

  it('keeps the last detail until its session is touched again', () => {
    const h = harness();
    h.feed(healthyLines('S1') + healthyLines('S2', 10));
    const load = detailLoader(h.db, h.live.book, { revision: (s) => h.live.revision(s) });
    const first = load('S1');
    expect(load('S1')).toBe(first);
    h.feed(rec(20, { kind: 'event.sent', session: 'S2', stream: 'g1', event_id: 2 }));
    expect(load('S1')).toBe(first);
    h.feed(rec(30, { kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2 }));
    const after = load('S1')!;
    expect(after).not.toBe(first);
    expect(after.rows).toHaveLength(4);
  });
});

describe('DashboardModelSource: sessions lost without a log line', () => {
  const created = (session: string, at: number) => rec(at, { kind: 'session.created', session, node: 'mcp-b', principal: `tok:${session}` });
  const notFound = (session: string, at: number) =>
    rec(at, { kind: 'upgrade', session, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node: 'mcp-b' });

  it('carries the losses the reports open with, read again after a new 404 at most every 5 s of wall time', () => {
    let wall = 0;
    const h = harness(() => wall);
    h.feed(created('S1', 0) + created('S2', 10));
    expect(h.model.model().losses).toEqual([]);
    h.feed(notFound('S1', 5000));
    expect(h.model.model().losses).toEqual([{ node: 'mcp-b', sessions: 1, from: '2026-11-09T10:00:05.000Z', until: '2026-11-09T10:00:05.000Z' }]);
    wall = 4000;
    h.feed(notFound('S2', 6000)); // too soon: the 404 waits for the next refresh after the 5 s
    expect(h.model.model().losses).toMatchObject([{ sessions: 1 }]);
    wall = 5000;
    h.feed(rec(7000, { kind: 'stream.opened', session: 'S3', stream: 'g9', via: 'get', node: 'mcp-a' }));
    expect(h.model.model().losses).toEqual([{ node: 'mcp-b', sessions: 2, from: '2026-11-09T10:00:05.000Z', until: '2026-11-09T10:00:06.000Z' }]);
  });

  it('a reading the rate limit put off is done by the idle refresh (watch: every second) once the 5 s have passed, though no line came', () => {
    let wall = 0;
    const h = harness(() => wall);
    h.feed(created('S1', 0) + created('S2', 10));
    h.feed(notFound('S1', 5000));
    wall = 1000;
    h.feed(notFound('S2', 6000)); // the appends stop here
    expect(h.model.model().losses).toMatchObject([{ sessions: 1 }]);
    wall = 3000;
    expect(h.model.refreshLosses()).toBe(false); // within the limit (near miss)
    expect(h.model.model().losses).toMatchObject([{ sessions: 1 }]);
    wall = 5000;
    const before = h.model.model();
    expect(h.model.refreshLosses()).toBe(true);
    expect(h.model.model()).not.toBe(before);
    expect(h.model.model().losses).toEqual([{ node: 'mcp-b', sessions: 2, from: '2026-11-09T10:00:05.000Z', until: '2026-11-09T10:00:06.000Z' }]);
    // Nothing new since: the answer stands, and the question (every 404 of the log) is not asked again.
    wall = 60_000;
    expect(h.model.refreshLosses()).toBe(false);
  });

  it('live, a loss another node answered is shown once the silent node has logged nothing for 30 s of log time', () => {
    let wall = 0;
    const h = harness(() => wall);
    const other = (at: number) => rec(at, { kind: 'stream.opened', session: 'Z1', stream: `g${at}`, via: 'get', node: 'mcp-c' });
    const fromC = (session: string, at: number) =>
      rec(at, { kind: 'upgrade', session, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node: 'mcp-c' });
    h.feed(created('S1', 0) + fromC('S1', 5000));
    // mcp-b may only be late: its file could still bring lines after 5 s
    expect(h.model.model().losses).toEqual([]);
    wall = 5000;
    h.feed(other(LIVE_SILENCE_MS - 1));
    expect(h.model.model().losses).toEqual([]);
    wall = 10_000;
    h.feed(other(LIVE_SILENCE_MS)); // no new 404: the held-back loss is asked about again
    expect(h.model.model().losses).toEqual([{ node: 'mcp-b', sessions: 1, from: '2026-11-09T10:00:05.000Z', until: '2026-11-09T10:00:05.000Z' }]);
  });

  it('live, a node that turns out to be late, not silent, is never shown as a loss', () => {
    let wall = 0;
    const h = harness(() => wall);
    const fromC = rec(5000, { kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node: 'mcp-c' });
    h.feed(created('S1', 0) + fromC);
    wall = 5000;
    h.feed(created('S2', 6000)); // mcp-b's late lines arrive: it still logs
    wall = 10_000;
    h.feed(rec(LIVE_SILENCE_MS + 10_000, { kind: 'stream.opened', session: 'Z1', stream: 'g1', via: 'get', node: 'mcp-c' }));
    expect(h.model.model().losses).toEqual([]);
  });

  it('live, a loss shown because its node fell silent is taken back once that node logs again (its file was late), 404 or not', () => {
    let wall = 0;
    const h = harness(() => wall);
    const fromC = rec(5000, { kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node: 'mcp-c' });
    h.feed(created('S1', 0) + fromC + rec(LIVE_SILENCE_MS + 10_000, { kind: 'stream.opened', session: 'Z1', stream: 'g1', via: 'get', node: 'mcp-c' }));
    expect(h.model.model().losses).toMatchObject([{ node: 'mcp-b', sessions: 1 }]);
    const state = () => h.model.model().sessions.find((r) => r.session === 'S1')?.state;
    expect(state()).toBe('lost');
    wall = 5000;
    h.feed(created('S2', 6000)); // mcp-b's file catches up: a line after the 404, and no new 404
    expect(h.model.model().losses).toEqual([]);
    expect(state()).toBe('live');
  });

  it('the sessions of a loss shown are `lost` in the sessions table; the node\'s others stay live', () => {
    const h = harness();
    h.feed(created('S1', 0) + created('S2', 10) + notFound('S1', 5000));
    const state = (session: string) => h.model.model().sessions.find((r) => r.session === session)?.state;
    expect(state('S1')).toBe('lost');
    expect(state('S2')).toBe('live');
  });

  it('a 404 from a node that logged the session\'s end is no loss', () => {
    const h = harness();
    h.feed(created('S1', 0) + rec(1000, { kind: 'session.evicted', session: 'S1', reason: 'idle_timeout', node: 'mcp-b' }) + notFound('S1', 5000));
    expect(h.model.model().losses).toEqual([]);
    expect(h.model.model().sessions.find((r) => r.session === 'S1')?.state).toBe('ended');
  });
});
