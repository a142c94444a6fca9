import { describe, expect, it } from 'vitest';
import { LiveSession } from '../../src/live/session.js';
import type { Finding } from '../../src/model/finding.js';
import { rec } from './support.js';
import { inputLines, memoryDb, wholeLogFindings } from './whole-log.js';

// Records are ordered by their time, not by when their line arrives (log-format.md). A line timed before a
// finding can still arrive after it: from another node's file whose shipper lags, or from a logger that flushes
// late into the one file. What `watch` announces cannot be taken back, so a finding such a line can withdraw
// waits: these hold live mode to what `analyze` finds in the final logs. (The time audit's case, where watch
// --fail-on error failed a soak on a dual-writer analyze of the same logs does not find.)

const SHARED = { sharedSessionStore: true };

const sorted = (fs: Finding[]) => fs.map((f) => JSON.stringify(f)).sort();
const rules = (fs: Finding[]) => fs.map((f) => f.rule).sort();

// node-a writes U1 and closes it at 1.9 s; node-b resumes it from event 2 at 2.0 s (one session store).
const A = { session: 'S-1', node: 'node-a' };
const NODE_A_EARLY =
  rec(0, { kind: 'session.created', ...A, principal: 'tok:a' }) +
  rec(10, { kind: 'stream.opened', ...A, stream: 'U1', via: 'get' }) +
  rec(100, { kind: 'event.sent', ...A, stream: 'U1', event_id: 1 }) +
  rec(200, { kind: 'event.sent', ...A, stream: 'U1', event_id: 2 });
const NODE_A_CLOSE = rec(1900, { kind: 'stream.closed', ...A, stream: 'U1', reason: 'error' });
const resumeOnNodeB = (from: number) =>
  rec(2000, { kind: 'upgrade', session: 'S-1', node: 'node-b', last_event_id: from, stream: 'U1', new_stream: 'U2', decision: 'resume', status: 200, replayed: 0, reemitted: 0, principal: 'tok:a' }) +
  rec(2001, { kind: 'stream.opened', session: 'S-1', node: 'node-b', stream: 'U2', via: 'get' });

describe('watch holds a finding that a line timed before it, arriving later, can withdraw', () => {
  it('another node\'s close of the stream, read 3 s after the takeover: no dual-writer is announced, as analyze finds none', () => {
    let now = 0;
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => now, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.addLines('node-b.ndjson', inputLines(resumeOnNodeB(2)));
    const announced = [...live.detect().fresh];
    expect(rules(live.book.all())).toContain('dual-writer');
    now = 3000;
    announced.push(...live.settle());
    live.addLines('node-a.ndjson', inputLines(NODE_A_CLOSE, 5));
    announced.push(...live.detect().fresh);
    now = 10_000;
    announced.push(...live.settle(), ...live.settle(true));

    const expected = wholeLogFindings([
      { name: 'node-a.ndjson', text: NODE_A_EARLY + NODE_A_CLOSE },
      { name: 'node-b.ndjson', text: resumeOnNodeB(2) },
    ], SHARED);
    expect(expected).toEqual([]);
    expect(announced).toEqual([]);
    expect(live.book.all()).toEqual([]);
  });

  it('a dual-writer no late line withdraws is announced once it has stood for the settle period (near miss)', () => {
    let now = 0;
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => now, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.addLines('node-b.ndjson', inputLines(resumeOnNodeB(2)));
    expect(live.detect().fresh).toEqual([]);
    now = 4999;
    expect(live.settle()).toEqual([]);
    now = 5000;
    const announced = live.settle();
    // (with the engine's verdict it explains, held as long: node-a's file had not shown the takeover's time)
    expect(announced.map((f) => [f.rule, f.session, f.severity])).toEqual([
      ['dual-writer', 'S-1', 'error'],
      ['engine-divergence', 'S-1', 'info'],
    ]);
    // As it now reads, and as analyze words it.
    const expected = wholeLogFindings([
      { name: 'node-a.ndjson', text: NODE_A_EARLY },
      { name: 'node-b.ndjson', text: resumeOnNodeB(2) },
    ], SHARED);
    expect(sorted(announced)).toEqual(sorted(expected));
    expect(live.settle(true)).toEqual([]);
  });

  it('one file: a close timed before the takeover, appended after it, withdraws the dual-writer before it is announced', () => {
    let now = 0;
    const onOneNode = (text: string) => text.replaceAll('"node-b"', '"node-a"');
    const live = new LiveSession(memoryDb(), { now: () => now, settleMs: 5000 });
    live.addLines('app.ndjson', inputLines(NODE_A_EARLY + onOneNode(resumeOnNodeB(2))));
    const announced = [...live.detect().fresh];
    expect(rules(live.book.all())).toContain('dual-writer');
    now = 3000;
    live.addLines('app.ndjson', inputLines(NODE_A_CLOSE, 7));
    announced.push(...live.detect().fresh, ...live.settle());
    now = 10_000;
    announced.push(...live.settle(), ...live.settle(true));

    expect(wholeLogFindings([{ name: 'app.ndjson', text: NODE_A_EARLY + onOneNode(resumeOnNodeB(2)) + NODE_A_CLOSE }], SHARED)).toEqual([]);
    expect(announced).toEqual([]);
  });

  it('a resumption from an event another node\'s file has yet to show sent: the phantom is held, and withdrawn when the send arrives', () => {
    const sent3 = rec(1500, { kind: 'event.sent', ...A, stream: 'U1', event_id: 3 });
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => 0, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.addLines('node-b.ndjson', inputLines(resumeOnNodeB(3)));
    const announced = [...live.detect().fresh];
    expect(rules(live.book.all())).toContain('phantom-event-id');
    live.addLines('node-a.ndjson', inputLines(sent3 + NODE_A_CLOSE, 5));
    announced.push(...live.detect().fresh, ...live.settle(true));
    const expected = wholeLogFindings([
      { name: 'node-a.ndjson', text: NODE_A_EARLY + sent3 + NODE_A_CLOSE },
      { name: 'node-b.ndjson', text: resumeOnNodeB(3) },
    ], SHARED);
    expect(expected).toEqual([]);
    expect(announced).toEqual([]);
  });

  it('announces such a finding as soon as every followed file has shown a line at or after its time, without waiting the settle period', () => {
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => 0, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.addLines('node-b.ndjson', inputLines(resumeOnNodeB(3)));
    expect(live.detect().fresh).toEqual([]);
    // node-a goes on with another session, past the resumption: nothing of it can come before 2.0 s any more.
    live.addLines('node-a.ndjson', inputLines(rec(2500, { kind: 'session.created', session: 'S-2', node: 'node-a', principal: 'tok:b' }), 5));
    const round = live.detect();
    expect(rules(round.fresh)).toEqual(['engine-divergence', 'phantom-event-id']);
    // A dual-writer still waits: a close the one file logs late is timed before it, whatever the other files show.
    expect(rules(live.book.all())).toContain('dual-writer');
    expect(rules(live.settle(true))).toEqual(['dual-writer']);
  });

  it('a finding without a session, which stands on its one record, is announced at once though another file lags (near miss)', () => {
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => 0, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.addLines('node-b.ndjson', inputLines(rec(2000, { kind: 'upgrade', session: null, node: 'node-b', last_event_id: 5, decision: 'resume', status: 200, new_stream: 'g-5' })));
    expect(rules(live.detect().fresh)).toEqual(['engine-divergence', 'event-id-without-session']);
  });

  it('a file that has ended (read whole, or rotated away and drained) holds nothing back (near miss)', () => {
    const live = new LiveSession(memoryDb(), { detect: SHARED, now: () => 0, settleMs: 5000 });
    live.addLines('node-a.ndjson', inputLines(NODE_A_EARLY));
    live.endSource('node-a.ndjson');
    live.addLines('node-b.ndjson', inputLines(resumeOnNodeB(3)));
    expect(rules(live.detect().fresh)).toEqual(['engine-divergence', 'phantom-event-id']);
  });
});
