import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/pipeline/derived.js';
import { LiveSession, REJUDGE_AFTER_MS } from '../../src/live/session.js';
import type { Finding } from '../../src/model/finding.js';
import { SourceIngest } from '../../src/pipeline/ingest.js';
import { healthyLines, rec, violatingLine } from './support.js';
import { inputLines, memoryDb, wholeLogFindings } from './whole-log.js';

// The live pipeline judges only what a batch touched; these tests hold it to
// what `analyze` finds in the same log read whole.


const sorted = (fs: Finding[]) => fs.map((f) => JSON.stringify(f)).sort();

/** Feeds the sources line by line, `batch` lines at a time, round-robin across sources, with a detection round after each batch. */
function feedLive(sources: { name: string; text: string }[], batch: number, live = new LiveSession(memoryDb())): { live: LiveSession; announced: Finding[] } {
  const queues = sources.map((s) => ({ name: s.name, lines: inputLines(s.text) }));
  const announced: Finding[] = [];
  while (queues.some((q) => q.lines.length > 0)) {
    for (const q of queues) {
      const part = q.lines.splice(0, batch);
      if (part.length === 0) continue;
      live.addLines(q.name, part);
      announced.push(...live.detect().fresh);
    }
  }
  announced.push(...live.settle(true));
  return { live, announced };
}

const SAMPLES = ['clean', 'http-edge', 'replay-integrity', 'session-continuity', 'stream-vs-session', 'writers'].map((n) => ({
  name: `samples/${n}.ndjson`,
  text: readFileSync(new URL(`../../samples/${n}.ndjson`, import.meta.url), 'utf8'),
}));
const MULTI_NODE = ['node-a', 'node-b'].map((n) => ({
  name: `samples/multi-node/${n}.ndjson`,
  text: readFileSync(new URL(`../../samples/multi-node/${n}.ndjson`, import.meta.url), 'utf8'),
}));

describe('LiveSession', () => {
  describe.each([1, 3, 1000])('fed %i line(s) per batch', (batch) => {
    it.each(SAMPLES.map((s) => [s.name, s] as const))('ends with the findings analyze reports for %s', (_name, sample) => {
      const expected = wholeLogFindings([sample]);
      const { live } = feedLive([sample], batch);
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('ends with the findings analyze reports for two nodes logging at once', () => {
      const { live } = feedLive(MULTI_NODE, batch);
      expect(sorted(live.book.all())).toEqual(sorted(wholeLogFindings(MULTI_NODE)));
    });
  });

  it('announces a finding once, in the round that finds it, however often its session is judged again', () => {
    const live = new LiveSession(memoryDb());
    live.addLines('app.ndjson', inputLines(healthyLines('S1')));
    expect(live.detect().fresh).toEqual([]);
    live.addLines('app.ndjson', inputLines(violatingLine(10), 4));
    const round = live.detect();
    expect(round.fresh.map((f) => f.rule)).toContain('event-id-without-session');
    expect(round.fresh.find((f) => f.rule === 'event-id-without-session')).toMatchObject({ session: null, evidence: [{ file: 'app.ndjson', line: 4 }] });
    live.addLines('app.ndjson', inputLines(rec(20, { kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 2 }), 5));
    expect(live.detect().fresh).toEqual([]);
    expect(live.book.all().filter((f) => f.rule === 'event-id-without-session')).toHaveLength(1);
  });

  it('announces a finding once even when a later line rewords it', () => {
    let now = 0;
    const live = new LiveSession(memoryDb(), { now: () => now, settleMs: 1000 });
    live.addLines(
      'app.ndjson',
      inputLines(
        rec(0, { kind: 'session.created', session: 'S1' }) +
          rec(10, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }) +
          rec(20, { kind: 'event.sent', session: 'S1', stream: 'g1', event_id: 1 }) +
          rec(30, { kind: 'upgrade', session: 'S1', last_event_id: 1, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 }),
      ),
    );
    // A dual writer waits the settle period (a close timed before the takeover may still come), then is announced.
    expect(live.detect().fresh.filter((f) => f.rule === 'dual-writer')).toEqual([]);
    now = 1000;
    const first = live.settle().filter((f) => f.rule === 'dual-writer');
    expect(first).toHaveLength(1);
    live.addLines('app.ndjson', inputLines(rec(5000, { kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'half_open' }), 5));
    expect(live.detect().fresh.filter((f) => f.rule === 'dual-writer')).toEqual([]);
    now = 3000;
    expect(live.settle(true)).toEqual([]);
    const reworded = live.book.all().filter((f) => f.rule === 'dual-writer');
    expect(reworded).toHaveLength(1);
    expect(reworded[0]!.message).not.toBe(first[0]!.message);
  });

  it('judges a resumption against the sessions a batch did not touch (a foreign event id)', () => {
    const live = new LiveSession(memoryDb());
    // a.ndjson has shown lines past B's resumption: nothing of it can come that a finding then rests on
    const aText = healthyLines('A') + rec(5, { kind: 'event.sent', session: 'A', stream: 'g1', event_id: 'a-77' }) + rec(25, { kind: 'session.created', session: 'Z', principal: 'zed' });
    live.addLines('a.ndjson', inputLines(aText));
    live.addLines('b.ndjson', inputLines(healthyLines('B', 10)));
    live.detect();
    // B resumes from an id only A ever emitted: only B is touched now.
    const resume = rec(20, { kind: 'upgrade', session: 'B', last_event_id: 'a-77', stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 });
    live.addLines('b.ndjson', inputLines(resume, 4));
    const round = live.detect();
    expect(round.sessions).toEqual(['B']);
    expect(round.fresh.map((f) => f.rule)).toContain('foreign-event-id');
    expect(sorted(live.book.all())).toEqual(
      sorted(
        wholeLogFindings([
          { name: 'a.ndjson', text: aText },
          { name: 'b.ndjson', text: healthyLines('B', 10) + resume },
        ]),
      ),
    );
  });


  describe('judges again a resumption whose event id another node\'s file, read later, shows sent', () => {
    // enough other sessions that B and C are judged apart, on what is copied beside them
    const fillers = ['D', 'E', 'F', 'G', 'H', 'I', 'J', 'K'].map((s, i) => healthyLines(s, 30 + i)).join('');
    const resume = rec(100, { kind: 'upgrade', session: 'B', last_event_id: 9, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 });
    const first = healthyLines('B', 60) + resume + fillers;

    function readLate(other: string): { live: LiveSession; expected: Finding[] } {
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(first));
      live.detect();
      live.addLines('c.ndjson', inputLines(other));
      live.detect();
      live.finish();
      return { live, expected: wholeLogFindings([{ name: 'a.ndjson', text: first }, { name: 'c.ndjson', text: other }]) };
    }

    it('another session sent it before the resumption: foreign, not phantom', () => {
      expect(wholeLogFindings([{ name: 'a.ndjson', text: first }]).map((f) => f.rule)).toContain('phantom-event-id');
      const { live, expected } = readLate(healthyLines('C', 5) + rec(20, { kind: 'event.sent', session: 'C', stream: 'g1', event_id: 9 }));
      expect(expected.map((f) => f.rule)).toContain('foreign-event-id');
      expect(expected.map((f) => f.rule)).not.toContain('phantom-event-id');
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('another session sent it 5 s after, by a clock ahead: no phantom either', () => {
      const { live, expected } = readLate(healthyLines('C', 5) + rec(5_100, { kind: 'event.sent', session: 'C', stream: 'g1', event_id: 9 }));
      expect(expected.map((f) => f.rule)).not.toContain('phantom-event-id');
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('copies the session that sent it 5 s after, read first, beside the resumption judged alone', () => {
      const other = healthyLines('C', 5) + rec(5_100, { kind: 'event.sent', session: 'C', stream: 'g1', event_id: 9 });
      const live = new LiveSession(memoryDb());
      live.addLines('c.ndjson', inputLines(other + fillers));
      live.detect();
      live.addLines('a.ndjson', inputLines(healthyLines('B', 60) + resume));
      expect(live.detect().sessions).toEqual(['B']);
      const expected = wholeLogFindings([{ name: 'c.ndjson', text: other + fillers }, { name: 'a.ndjson', text: healthyLines('B', 60) + resume }]);
      expect(expected.map((f) => f.rule)).not.toContain('phantom-event-id');
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('leaves it alone where the other session sent another id', () => {
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(first));
      live.detect();
      live.addLines('c.ndjson', inputLines(healthyLines('C', 5) + rec(20, { kind: 'event.sent', session: 'C', stream: 'g1', event_id: 10 })));
      expect(live.detect().sessions).toEqual(['C']);
      expect(live.finish()).toBeUndefined();
    });
  });

  it('names the same other sender as analyze where the log\'s times are out of order', () => {
    // A logs id 9 first in the file but later in time than C: analyze names the first sender by time, C.
    const others =
      healthyLines('A') + rec(50, { kind: 'event.sent', session: 'A', stream: 'g1', event_id: 9 }) +
      healthyLines('C', 5) + rec(20, { kind: 'event.sent', session: 'C', stream: 'g1', event_id: 9 }) +
      // enough other sessions that B alone is judged apart, on what is copied beside it
      ['D', 'E', 'F', 'G'].map((s, i) => healthyLines(s, 30 + i)).join('');
    const resume = rec(100, { kind: 'upgrade', session: 'B', last_event_id: 9, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0 });
    const live = new LiveSession(memoryDb());
    live.addLines('a.ndjson', inputLines(others));
    live.addLines('b.ndjson', inputLines(healthyLines('B', 60)));
    live.detect();
    live.addLines('b.ndjson', inputLines(resume, 4));
    expect(live.detect().sessions).toEqual(['B']);
    const expected = wholeLogFindings([
      { name: 'a.ndjson', text: others },
      { name: 'b.ndjson', text: healthyLines('B', 60) + resume },
    ]);
    expect(expected.find((f) => f.rule === 'foreign-event-id')?.message).toMatch(/session C sent/);
    expect(sorted(live.book.all())).toEqual(sorted(expected));
  });
  it('re-judges only the touched sessions, copying a small part of a large log', () => {
    const live = new LiveSession(memoryDb());
    let text = '';
    for (let s = 0; s < 60; s++) text += healthyLines(`S${s}`, s * 10);
    live.addLines('app.ndjson', inputLines(text));
    live.detect();
    live.addLines('app.ndjson', inputLines(rec(1000, { kind: 'event.sent', session: 'S7', stream: 'g1', event_id: 2 }), 181));
    const round = live.detect();
    expect(round.sessions).toEqual(['S7']);
    // S7's four records and the record that ends the log.
    expect(round.records).toBeLessThanOrEqual(5);
  });

  it('judges a catch-up that touched most of a long log in place, as analyze does, then only the touched sessions again', () => {
    const live = new LiveSession(memoryDb());
    let text = '';
    for (let s = 0; s < 300; s++) {
      text += healthyLines(`S${s}`, s * 10);
      // Every tenth resumes from an event id its session never sent: phantom-event-id.
      if (s % 10 === 0) text += rec(5000 + s, { kind: 'upgrade', session: `S${s}`, last_event_id: 99, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 });
    }
    const lines = inputLines(text);
    live.addLines('app.ndjson', lines);
    const round = live.detect();
    expect(round.sessions).toHaveLength(300);
    expect(round.records).toBe(lines.length);
    const expected = wholeLogFindings([{ name: 'app.ndjson', text }]);
    expect(expected.filter((f) => f.rule === 'phantom-event-id')).toHaveLength(30);
    expect(sorted(live.book.all())).toEqual(sorted(expected));
    live.addLines('app.ndjson', inputLines(rec(9000, { kind: 'event.sent', session: 'S7', stream: 'g1', event_id: 2 }), lines.length + 1));
    const next = live.detect();
    expect(next.sessions).toEqual(['S7']);
    expect(next.records).toBeLessThanOrEqual(5);
    expect(sorted(live.book.all())).toEqual(sorted(expected));
  });

  it('judges a touched session that holds most of the log in place, not copied, and a small one alone', () => {
    const live = new LiveSession(memoryDb());
    // A soak test of one client beside a few short sessions: L is four fifths of the log.
    let text = healthyLines('L', 0);
    for (let e = 2; e < 400; e++) text += rec(10 + e, { kind: 'event.sent', session: 'L', stream: 'g1', event_id: e });
    for (let s = 0; s < 30; s++) text += healthyLines(`S${s}`, 5000 + s * 10);
    const lines = inputLines(text);
    live.addLines('app.ndjson', lines);
    live.detect();
    // L resumes from an event id it never sent: a phantom, judged with the whole log read in place.
    const resume = rec(9000, { kind: 'upgrade', session: 'L', last_event_id: 4000, stream: 'g1', new_stream: 'g2', decision: 'resume', status: 200, replayed: 0, reemitted: 0 });
    live.addLines('app.ndjson', inputLines(resume, lines.length + 1));
    const round = live.detect();
    expect(round.sessions).toEqual(['L']);
    expect(round.records).toBe(lines.length + 1);
    expect(round.fresh.map((f) => [f.rule, f.session])).toContainEqual(['phantom-event-id', 'L']);
    expect(sorted(live.book.all())).toEqual(sorted(wholeLogFindings([{ name: 'app.ndjson', text: text + resume }])));
    // A short session touched alone is still judged in a scratch database of its own.
    live.addLines('app.ndjson', inputLines(rec(9100, { kind: 'event.sent', session: 'S7', stream: 'g1', event_id: 2 }), lines.length + 2));
    const next = live.detect();
    expect(next.sessions).toEqual(['S7']);
    expect(next.records).toBeLessThanOrEqual(5);
  });

  it('holds back an end-of-log finding until it has stood for the settle period, and drops it when a later line answers it', () => {
    let now = 0;
    const live = new LiveSession(memoryDb(), { now: () => now, settleMs: 1000 });
    const stranded = (session: string, at: number) =>
      healthyLines(session, at) +
      rec(at + 3, { kind: 'request.sent', session, stream: 'g1', request_id: `${session}-r1`, method: 'sampling/createMessage' }) +
      rec(at + 4, { kind: 'stream.closed', session, stream: 'g1', reason: 'error' });
    live.addLines('app.ndjson', inputLines(stranded('S1', 0) + stranded('S2', 100)));
    const first = live.detect();
    expect(first.fresh.filter((f) => f.rule === 'orphaned-request')).toEqual([]);
    expect(live.book.all().filter((f) => f.rule === 'orphaned-request').map((f) => f.session)).toEqual(['S1', 'S2']);
    // S2's request is answered after all, 500 ms later: not an orphan.
    now = 500;
    live.addLines('app.ndjson', inputLines(rec(200, { kind: 'request.answered', session: 'S2', request_id: 'S2-r1', status: 202 }), 11));
    live.detect();
    expect(live.book.all().filter((f) => f.rule === 'orphaned-request').map((f) => f.session)).toEqual(['S1']);
    expect(live.settle()).toEqual([]);
    now = 1000;
    expect(live.settle().map((f) => [f.rule, f.session])).toEqual([['orphaned-request', 'S1']]);
    expect(live.settle(true)).toEqual([]);
  });

  it('holds a session minted at what its mint logged as 2026-07-28 until its next request shows the revision it speaks', () => {
    // The mint logs the version the client asked for; the session's later request, the one negotiated.
    let now = 0;
    const live = new LiveSession(memoryDb(), { now: () => now, settleMs: 1000 });
    const mint = (session: string, at: number) =>
      rec(at, { kind: 'upgrade', session: null, last_event_id: null, decision: 'fresh', status: 200, new_session: session, protocol_version: '2026-07-28' }) +
      rec(at + 1, { kind: 'session.created', session, protocol_version: '2026-07-28' });
    live.addLines('app.ndjson', inputLines(mint('S1', 0) + mint('S2', 100)));
    expect(live.detect().fresh.filter((f) => f.rule === 'session-in-stateless-era')).toEqual([]);
    expect(live.book.all().filter((f) => f.rule === 'session-in-stateless-era').map((f) => f.session)).toEqual(['S1', 'S2']);
    now = 500;
    live.addLines('app.ndjson', inputLines(rec(2000, { kind: 'call', session: 'S2', rpc_id: 1, method: 'tools/list', status: 200, protocol_version: '2025-11-25' }), 5));
    live.detect();
    expect(live.book.all().filter((f) => f.rule === 'session-in-stateless-era').map((f) => f.session)).toEqual(['S1']);
    now = 1000;
    expect(live.settle().map((f) => [f.rule, f.session, f.evidence.map((e) => e.line)])).toEqual([['session-in-stateless-era', 'S1', [1, 2]]]);
  });

  describe('judges again a session whose retry another session\'s later lines decide (duplicate-tool-call)', () => {
    // P calls lookup in A; a session B is created for P, and P calls lookup again in B. Whether P left A for B
    // (the retry clause) depends on A's last client request, which may come in a later batch.
    const call = (ms: number, session: string, tool = 'lookup') =>
      rec(ms, { kind: 'call', session, rpc_id: `${session}-${ms}`, method: 'tools/call', tool, args_hash: 'h1', status: 200 });
    const created = (ms: number, session: string) => rec(ms, { kind: 'session.created', session, principal: 'P' });
    const fillers = ['D', 'E', 'F', 'G', 'H'].map((s, i) => healthyLines(s, 100 + i)).join('');
    const before = created(0, 'A') + call(9_500, 'A') + created(11_000, 'B') + call(12_300, 'B') + fillers;

    function fedInTwo(later: string): { live: LiveSession; expected: Finding[] } {
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(before));
      live.detect();
      live.addLines('a.ndjson', inputLines(later, 100));
      live.detect();
      live.finish();
      return { live, expected: wholeLogFindings([{ name: 'a.ndjson', text: before + later }]) };
    }

    it('withdraws the retry once the first session shows the client went on using it', () => {
      expect(wholeLogFindings([{ name: 'a.ndjson', text: before }]).map((f) => f.rule)).toContain('duplicate-tool-call');
      const { live, expected } = fedInTwo(call(19_200, 'A', 'other-tool'));
      expect(expected.map((f) => f.rule)).not.toContain('duplicate-tool-call');
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('finds the retry once a later batch shows the first session ended before it', () => {
      // (A's call of another tool after B's: the client had not left A for B)
      const early = created(0, 'A') + call(9_500, 'A') + created(11_000, 'B') + call(12_300, 'B') + call(13_000, 'A', 'other-tool') + fillers;
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(early));
      live.detect();
      expect(live.book.all().map((f) => f.rule)).not.toContain('duplicate-tool-call');
      // another node's file, read later: A ended before B's call
      live.addLines('b.ndjson', inputLines(rec(10_000, { kind: 'session.terminated', session: 'A', reason: 'policy' })));
      live.detect();
      live.finish();
      const expected = wholeLogFindings([{ name: 'a.ndjson', text: early }, { name: 'b.ndjson', text: rec(10_000, { kind: 'session.terminated', session: 'A', reason: 'policy' }) }]);
      expect(expected.map((f) => f.rule)).toContain('duplicate-tool-call');
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('judges a session whose retry waits to settle in the very round a batch may withdraw it: it is never announced', () => {
      // B's retry rests on P having left A: A's later line withdraws it, so it is held, not announced at once
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(before));
      expect(live.detect().fresh.map((f) => f.rule)).not.toContain('duplicate-tool-call');
      expect(live.book.forSession('B').map((f) => f.rule)).toContain('duplicate-tool-call');
      live.addLines('a.ndjson', inputLines(call(19_200, 'A', 'other-tool'), 100));
      expect(live.detect().sessions.sort()).toEqual(['A', 'B']);
      expect(live.book.forSession('B').map((f) => f.rule)).not.toContain('duplicate-tool-call');
      expect(live.settle(true).map((f) => f.rule)).not.toContain('duplicate-tool-call');
      expect(live.finish()).toBeUndefined();
    });

    it('judges a session with no finding waiting once the log has gone on past the batch, not in its round (near miss)', () => {
      const early = created(0, 'A') + call(9_500, 'A') + created(11_000, 'B') + call(12_300, 'B') + call(13_000, 'A', 'other-tool') + fillers;
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(early));
      live.detect();
      // another node's file, read later (whole: it holds nothing more): A ended before B's call, which makes B's call a retry (from the next batch on)
      live.addLines('b.ndjson', inputLines(rec(10_000, { kind: 'session.terminated', session: 'A', reason: 'policy' })));
      live.endSource('b.ndjson');
      expect(live.detect().sessions).toEqual(['A']);
      expect(live.book.forSession('B').map((f) => f.rule)).not.toContain('duplicate-tool-call');
      // 5 s of log later (REJUDGE_AFTER_MS), B is judged again, and its retry announced at once (an ended session stays ended)
      live.addLines('a.ndjson', inputLines(rec(13_000 + REJUDGE_AFTER_MS, { kind: 'event.sent', session: 'D', stream: 'g1', event_id: 2 }), 101));
      const round = live.detect();
      expect(round.sessions.sort()).toEqual(['B', 'D']);
      expect(round.fresh.map((f) => [f.rule, f.session])).toContainEqual(['duplicate-tool-call', 'B']);
    });

    it('moves the retry of an ended session to an earlier call another node logs later', () => {
      // A ends; D's call is its retry until C's, earlier, comes in another node's file: a session is retried once
      const first = created(0, 'A') + call(9_500, 'A') + rec(10_000, { kind: 'session.terminated', session: 'A', reason: 'policy' }) +
        created(10_500, 'D') + call(13_000, 'D') + fillers;
      const second = created(11_000, 'C') + call(12_000, 'C');
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(first));
      live.detect();
      expect(live.book.all().filter((f) => f.rule === 'duplicate-tool-call').map((f) => f.session)).toEqual(['D']);
      live.addLines('b.ndjson', inputLines(second));
      live.detect();
      live.finish();
      const expected = wholeLogFindings([{ name: 'a.ndjson', text: first }, { name: 'b.ndjson', text: second }]);
      expect(expected.filter((f) => f.rule === 'duplicate-tool-call').map((f) => f.session)).toEqual(['C']);
      expect(sorted(live.book.all())).toEqual(sorted(expected));
    });

    it('leaves the retries of another principal alone', () => {
      const live = new LiveSession(memoryDb());
      live.addLines('a.ndjson', inputLines(before + rec(5_000, { kind: 'session.created', session: 'Q1', principal: 'Q' })));
      live.detect();
      // Q1 ends between A's call and B's, in another node's file: nothing of P's
      live.addLines('b.ndjson', inputLines(rec(10_000, { kind: 'session.terminated', session: 'Q1', reason: 'policy' })));
      expect(live.detect().sessions).toEqual(['Q1']);
      expect(live.finish()).toBeUndefined();
    });
  });

  it('judges a stale writer once the log has gone past the grace period, though its session is not touched again', () => {
    const live = new LiveSession(memoryDb());
    const s1 =
      rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }) +
      rec(10, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }) +
      rec(1000, { kind: 'upgrade', session: 'S1', last_event_id: null, decision: 'reject', status: 409, reason: 'conflict' });
    live.addLines('app.ndjson', inputLines(s1));
    expect(live.detect().fresh.map((f) => f.rule)).not.toContain('stale-writer-blocks-reconnect');
    const later = rec(8000, { kind: 'session.created', session: 'S2', principal: 'bob' });
    live.addLines('app.ndjson', inputLines(later, 4));
    const round = live.detect();
    expect(round.fresh.map((f) => [f.rule, f.session])).toContainEqual(['stale-writer-blocks-reconnect', 'S1']);
    expect(sorted(live.book.all())).toEqual(sorted(wholeLogFindings([{ name: 'app.ndjson', text: s1 + later }])));
  });

  it('judges an orphan the window left not knowable once the log has gone past it, though its session is not touched again', () => {
    const detectOpts = { orphanWindowMs: 30_000 };
    const live = new LiveSession(memoryDb(), { detect: detectOpts });
    const s1 =
      rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }) +
      rec(10, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }) +
      rec(100, { kind: 'request.sent', session: 'S1', stream: 'g1', request_id: 'r1', method: 'sampling/createMessage' }) +
      rec(2000, { kind: 'stream.closed', session: 'S1', stream: 'g1', reason: 'error' });
    live.addLines('app.ndjson', inputLines(s1));
    live.detect();
    expect(live.book.all().map((f) => f.rule)).not.toContain('orphaned-request');
    const later = rec(40_000, { kind: 'session.created', session: 'S2', principal: 'bob' });
    live.addLines('app.ndjson', inputLines(later, 5));
    live.detect();
    expect(live.book.all().map((f) => [f.rule, f.session])).toContainEqual(['orphaned-request', 'S1']);
    const whole = memoryDb();
    const ingest = new SourceIngest(whole, 'app.ndjson');
    for (const l of inputLines(s1 + later)) ingest.add(l);
    ingest.finish(null);
    expect(sorted(live.book.all())).toEqual(sorted(detect(whole, detectOpts).findings));
  });

  it('does not judge a proxy-only session again as the log goes on: only its own lines can change what the proxy hides', () => {
    const live = new LiveSession(memoryDb(), { detect: { orphanWindowMs: 30_000 } });
    // a resumption only the proxy saw: orphaned-request says it cannot see the streams
    const proxied = rec(0, {
      kind: 'http', method: 'GET', path: '/mcp', status: 200, duration_ms: 500, node: 'edge',
      req_headers: { 'mcp-session-id': 'P1', 'last-event-id': '4' }, resp_headers: { 'content-type': 'text/event-stream' },
    });
    live.addLines('proxy.ndjson', inputLines(proxied));
    expect(live.detect().sessions).toContain('P1');
    const whole = memoryDb();
    const ingest = new SourceIngest(whole, 'proxy.ndjson');
    for (const l of inputLines(proxied)) ingest.add(l);
    ingest.finish(null);
    expect(detect(whole, { orphanWindowMs: 30_000 }).not_knowable).toContainEqual(expect.objectContaining({ rule: 'orphaned-request', session: 'P1', reason: expect.stringContaining('proxy log only') }));
    live.addLines('app.ndjson', inputLines(rec(10_000, { kind: 'session.created', session: 'S2', principal: 'bob' })));
    expect(live.detect().sessions).toEqual(['S2']);
  });

  it('judges the records a --db file already holds in its first round', () => {
    const db = memoryDb();
    const ingest = new SourceIngest(db, 'earlier.ndjson');
    for (const l of inputLines(healthyLines('S1') + violatingLine(10))) ingest.add(l);
    ingest.finish(null);
    const live = new LiveSession(db);
    expect(live.pending).toBe(true);
    expect(live.detect().fresh.map((f) => f.rule)).toContain('event-id-without-session');
  });

  it('joins a line whose pieces come in different batches, and reads one still waiting on its last piece when its file ends', () => {
    const live = new LiveSession(memoryDb());
    const cri = (tag: string, text: string, stream = 'stdout') => `2026-11-09T10:00:01.000000001Z ${stream} ${tag} ${text}`;
    const created = rec(0, { kind: 'session.created', session: 'S1', principal: 'alice' }).trim();
    const opened = rec(10, { kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' }).trim();
    const records = () => live.db.prepare('SELECT line, kind FROM records ORDER BY line').raw().all();
    live.addLines('pod.log', [{ line: 1, text: cri('P', created.slice(0, 20)) }]);
    // the line after a waiting piece waits with it: lines are read in order
    live.addLines('pod.log', [{ line: 2, text: cri('F', opened, 'stderr') }]);
    expect(records()).toEqual([]);
    // Another record than line 2's: the same record text again would be a repeat (normalize/repeated-lines.ts).
    const reopened = rec(20, { kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get' }).trim();
    live.addLines('pod.log', [{ line: 3, text: cri('F', created.slice(20)) }, { line: 4, text: cri('P', reopened.slice(0, 30)) }]);
    expect(records()).toEqual([[1, 'session.created'], [2, 'stream.opened']]);
    // The file is rotated away with line 4 still waiting on its last piece: it is all there is of that line.
    live.addLines('pod.log', [{ line: 5, text: cri('P', reopened.slice(30)) }]);
    live.endSource('pod.log');
    expect(records()).toEqual([[1, 'session.created'], [2, 'stream.opened'], [4, 'stream.opened']]);
    expect(live.db.prepare('SELECT lines, records, ignored, rejected FROM sources').raw().get()).toEqual([5, 3, 2, 0]);
  });
  describe('what a round judges', () => {
    /** A session's opening and `events` more events on its stream, from `at` on. */
    const sessionLines = (session: string, at: number, events: number) => {
      let text = healthyLines(session, at);
      for (let e = 0; e < events; e++) text += rec(at + 3 + e, { kind: 'event.sent', session, stream: 'g1', event_id: 2 + e });
      return text;
    };
    /** A live session that has judged 300 sessions of 10 records each: 3000 records. */
    const withHistory = () => {
      const live = new LiveSession(memoryDb());
      let text = '';
      for (let i = 0; i < 300; i++) text += sessionLines(`old-${i}`, i * 10, 7);
      live.addLines('app.ndjson', inputLines(text));
      live.detect();
      return live;
    };

    it('judges a burst of short new sessions alone, though they are a good part of the sessions: not the whole log', () => {
      const live = withHistory();
      // 210 sessions (more than a scratch database takes, and over a quarter of the 510 then known) of 630 records in all.
      let text = '';
      const burst = Array.from({ length: 210 }, (_, i) => `new-${i}`);
      burst.forEach((s, i) => (text += sessionLines(s, 10_000 + i, 0)));
      live.addLines('app.ndjson', inputLines(text, 3001));
      const round = live.detect();
      expect(round.wholeLog).toBe(false);
      expect([...round.sessions].sort()).toEqual([...burst].sort());
      // Their records and what their rules look up, not the 3000 records before them.
      expect(round.records).toBeGreaterThanOrEqual(630);
      expect(round.records).toBeLessThan(3000);
    });

    it('judges the whole log in place when the touched sessions hold a quarter of its records (near miss)', () => {
      const live = withHistory();
      // One new session of 1000 records: a quarter of the 4000 then stored.
      live.addLines('app.ndjson', inputLines(sessionLines('long', 10_000, 997), 3001));
      const round = live.detect();
      expect(round.wholeLog).toBe(true);
      expect(round.records).toBe(4000);
    });
  });
});
