import { describe, expect, it } from 'vitest';
import { detect } from '../../src/pipeline/derived.js';
import { LiveSession } from '../../src/live/session.js';
import type { Finding } from '../../src/model/finding.js';
import { SourceIngest } from '../../src/pipeline/ingest.js';
import { openDb } from '../../src/store/db.js';
import { analyzeLines, at, evidenceLines, findingsOf, type LogLine } from '../helpers/logs.js';

const RULE = 'phantom-event-id';

const created = (session = 'S1') => ({ ts: at(0), kind: 'session.created', session });
const sent = (ms: number, id: number | string, session = 'S1', stream = 'g1') => ({ ts: at(ms), kind: 'event.sent', session, stream, event_id: id });
const resume = (ms: number, lastEventId: number | string, session = 'S1') => ({
  ts: at(ms),
  kind: 'upgrade',
  session,
  last_event_id: lastEventId,
  new_stream: 'g2',
  decision: 'resume',
  status: 200,
  replayed: 0,
});

describe('phantom-event-id', () => {
  it('flags a resumption from an id never sent, where the log covers the session from its creation', async () => {
    const report = await analyzeLines([created(), sent(1000, 'e1'), sent(1100, 'e2'), resume(2000, 'e9')]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.session).toBe('S1');
    expect(f!.message).toContain('resumed S1 from event e9, which no stream of any session ever sent');
    expect(evidenceLines(f!)).toEqual([1, 4]);
  });

  it('flags a numeric id above every id the session sent, even when the log starts mid-session', async () => {
    const report = await analyzeLines([sent(1000, 11), sent(1100, 12), resume(2000, 99)]);
    const [f] = findingsOf(report, RULE);
    expect(f!.message).toContain('above every id S1 sent (the highest was 12)');
    expect(evidenceLines(f!)).toEqual([2, 3]);
  });

  it('does not flag ids some stream sent: another stream of the session, or another session', async () => {
    const report = await analyzeLines([
      created(),
      created('S2'),
      sent(1000, 1),
      sent(1100, 2, 'S1', 'p7'), // a POST stream of S1
      sent(1200, 'x5', 'S2'), // sent, but by S2: foreign-event-id, not phantom
      resume(2000, 2),
      resume(2100, 'x5'),
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
  });

  it('flags an id no stream had sent by then, though another session sends it a minute later', async () => {
    const report = await analyzeLines([created(), created('S2'), sent(1000, 1), resume(2000, 28461), sent(77_000, 28461, 'S2', 'p9')]);
    const [f, ...rest] = findingsOf(report, RULE);
    expect(rest).toEqual([]);
    expect(f!.message).toContain('resumed S1 from event 28461, which no stream of any session had sent by then');
    expect(f!.message).toContain('it was first sent 75 s later, on p9 of S2');
    expect(evidenceLines(f!)).toEqual([1, 4, 5]);
  });

  // a node whose clock runs ahead logs the event after the resumption that names it
  it('does not flag an id first logged within the clock-skew allowance after the resumption', async () => {
    const report = await analyzeLines([created(), sent(1000, 1), resume(2000, 2), { ...sent(2200, 2), node: 'a' }]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
  });

  it('is not knowable when the log starts after the creation and the id cannot be placed', async () => {
    // 7 is below the highest id seen (12): it may have been sent before the log begins
    const report = await analyzeLines([sent(1000, 12), resume(2000, 7), resume(3000, 'opaque')]);
    expect(findingsOf(report, RULE)).toEqual([]);
    const reasons = report.not_knowable.filter((n) => n.rule === RULE).map((n) => n.reason);
    expect(reasons).toHaveLength(2);
    expect(reasons[0]).toMatch(/log starts after S1 was created and no stream in it sent event (7|opaque)/);
  });

  it('is not knowable for a proxy-only session whose proxy never saw the id go by', async () => {
    const report = await analyzeLines([
      { ts: at(0), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '40' }, resp_headers: { 'content-type': 'text/event-stream' } },
    ]);
    expect(findingsOf(report, RULE)).toEqual([]);
    expect(report.not_knowable.filter((n) => n.rule === RULE).map((n) => [n.session, n.reason.startsWith('proxy log only')])).toEqual([['P1', true]]);
  });

  describe('where a proxy log and a server log both name the session', () => {
    // a proxy's access lines: the initialize that minted P1, its GET stream showing ids 1..3 go by, a resumption from 1
    const proxyLines = [
      { ts: at(0), kind: 'http', method: 'POST', path: '/mcp', status: 200, req_headers: { 'content-type': 'application/json' }, resp_headers: { 'mcp-session-id': 'P1', 'content-type': 'application/json' }, rpc_kind: 'request', rpc_method: 'initialize', rpc_id: 1 },
      { ts: at(1000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', accept: 'text/event-stream' }, resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['1', '2', '3'], duration_ms: 1000 },
      { ts: at(3000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '1' }, resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['2', '3'] },
    ];
    const serverResume = (ms: number, lastEventId: string) => ({ ...resume(ms, lastEventId, 'P1'), new_stream: 'g9' });

    it('does not flag an id the proxy saw go by on the session\'s own stream, though the server logs only the upgrade', async () => {
      const report = await analyzeLines([...proxyLines, serverResume(11_000, '3')]);
      expect(findingsOf(report, RULE)).toEqual([]);
      expect(report.not_knowable.filter((n) => n.rule === RULE)).toEqual([]);
    });

    it('does not flag it where the server logged the creation and no event either', async () => {
      const report = await analyzeLines([...proxyLines, { ts: at(5), kind: 'session.created', session: 'P1' }, serverResume(11_000, '3')]);
      expect(findingsOf(report, RULE)).toEqual([]);
    });

    it('is not knowable for an id the proxy never saw, where only the proxy shows the creation and the server logs no event', async () => {
      const report = await analyzeLines([...proxyLines, serverResume(11_000, '7')]);
      expect(findingsOf(report, RULE)).toEqual([]);
      const reasons = report.not_knowable.filter((n) => n.rule === RULE).map((n) => [n.session, n.reason]);
      expect(reasons).toEqual([['P1', expect.stringContaining("only a proxy's line shows P1 created, the server logged no event it sent before the resumption")]]);
    });

    it('flags an id the proxy never saw on the session\'s streams where the server logged its emissions', async () => {
      const report = await analyzeLines([...proxyLines, sent(1100, 1, 'P1'), sent(1200, 2, 'P1'), sent(1300, 3, 'P1'), serverResume(11_000, '7')]);
      const [f, ...rest] = findingsOf(report, RULE);
      expect(rest).toEqual([]);
      expect(f!.message).toContain('resumed P1 from event 7, which no stream of any session ever sent, although the log covers P1 from its creation');
      expect(evidenceLines(f!)).toEqual([1, 7]);
    });

    it('flags an id the proxy saw only on another session\'s stream, or only in the reply to a resumption from it', async () => {
      const report = await analyzeLines([
        ...proxyLines,
        { ts: at(1500), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'Q9' }, resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['7'] },
        { ts: at(4000), kind: 'http', method: 'GET', path: '/mcp', status: 200, req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '8' }, resp_headers: { 'content-type': 'text/event-stream' }, sse_event_ids: ['8', '9'] },
        { ts: at(5), kind: 'session.created', session: 'P1' },
        sent(1100, 1, 'P1'),
        serverResume(11_000, '7'),
        serverResume(12_000, '8'),
      ]);
      expect(findingsOf(report, RULE).map((f) => f.message.match(/from event (\d+)/)![1])).toEqual(['8', '7', '8']);
    });

    // watch reads the proxy's file and the server's at their own paces: whichever comes first, it ends with analyze's verdict
    it.each([
      ['the proxy saw the id, the server logged only the upgrade', false, '3', 0],
      ['the proxy never saw the id, the server logged its emissions', true, '7', 1],
    ] as const)('watch agrees with analyze, either file first: %s', (_, emissions, lastEventId, count) => {
      const logged = [{ ts: at(5), kind: 'session.created', session: 'P1' }, sent(1100, 1, 'P1'), sent(1200, 2, 'P1'), sent(1300, 3, 'P1')];
      const server = [...(emissions ? logged : []), serverResume(11_000, lastEventId)];
      const files = { 'proxy.ndjson': proxyLines, 'server.ndjson': server };
      const whole = phantomsOf(analyzedWhole(files));
      expect(whole).toHaveLength(count);
      for (const order of [['proxy.ndjson', 'server.ndjson'], ['server.ndjson', 'proxy.ndjson']] as const) {
        const { announced, standing } = watchedInTurn(files, order);
        expect(phantomsOf(announced), `announced, ${order.join(' then ')}`).toEqual(whole);
        expect(phantomsOf(standing), `standing, ${order.join(' then ')}`).toEqual(whole);
      }
    });
  });
});

const phantomsOf = (fs: Finding[]) => fs.filter((f) => f.rule === RULE).map((f) => JSON.stringify(f));
const numbered = (lines: LogLine[]) => lines.map((l, i) => ({ line: i + 1, text: typeof l === 'string' ? l : JSON.stringify(l) }));

function analyzedWhole(files: Record<string, LogLine[]>): Finding[] {
  const db = openDb(':memory:');
  try {
    for (const [name, lines] of Object.entries(files)) {
      const ingest = new SourceIngest(db, name);
      for (const l of numbered(lines)) ingest.add(l);
      ingest.finish(null);
    }
    return detect(db).findings;
  } finally {
    db.close();
  }
}

/** One file whole, a detection round, then the other: the findings watch announces and those standing at the end. */
function watchedInTurn(files: Record<string, LogLine[]>, order: readonly string[]): { announced: Finding[]; standing: Finding[] } {
  const db = openDb(':memory:');
  try {
    const live = new LiveSession(db);
    const announced: Finding[] = [];
    for (const name of order) {
      live.addLines(name, numbered(files[name]!));
      announced.push(...live.detect().fresh);
    }
    live.finish();
    announced.push(...live.settle(true));
    return { announced, standing: live.book.all() };
  } finally {
    db.close();
  }
}

