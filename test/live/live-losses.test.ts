import { afterEach, describe, expect, it } from 'vitest';
import { LIVE_SILENCE_MS, LiveLosses } from '../../src/live/losses.js';
import { LiveSession } from '../../src/live/session.js';
import { openDb, type Db } from '../../src/store/db.js';
import { rec } from './support.js';

// The losses a growing log shows (the dashboard's, and what watch tells on stderr), read at the run's end.

const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

function harness() {
  const db = openDb(':memory:');
  dbs.push(db);
  let wall = 0;
  const live = new LiveSession(db, { now: () => wall });
  const losses = new LiveLosses(db, { live: true, now: () => wall });
  let line = 1;
  return {
    losses,
    tick: (ms: number) => (wall += ms),
    feed(text: string) {
      const lines = text.split('\n').filter(Boolean).map((t) => ({ line: line++, text: t }));
      live.addLines('app.ndjson', lines);
      live.detect();
    },
  };
}

const created = (session: string, at: number) => rec(at, { kind: 'session.created', session, node: 'mcp-b', principal: `tok:${session}` });
const notFound = (session: string, at: number, node: string) =>
  rec(at, { kind: 'upgrade', session, last_event_id: 1, stream: 'g1', decision: 'reject', status: 404, reason: 'session_not_found', node });

describe('LiveLosses while the log grows', () => {
  it('a loss held back is asked about again only once records came since: on an idle log the question (every 404 of it) is not asked again', () => {
    const h = harness();
    h.feed(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    h.losses.refresh();
    const held = h.losses.shown;
    expect(held).toEqual([]);
    h.tick(10_000);
    h.losses.refresh();
    expect(h.losses.shown).toBe(held); // not read again
    h.feed(rec(5000 + LIVE_SILENCE_MS, { kind: 'stream.opened', session: 'Z1', stream: 'g1', via: 'get', node: 'mcp-c' }));
    h.tick(10_000);
    h.losses.refresh();
    expect(h.losses.shown).toHaveLength(1);
  });
});

describe('LiveLosses at the end of a run', () => {
  it('caught up (every file read to its end), a node that logged nothing more is silent: its loss is shown without waiting 30 s of log time', () => {
    const h = harness();
    h.feed(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    h.losses.refresh();
    expect(h.losses.shown).toEqual([]);
    h.losses.refresh({ caughtUp: true });
    expect(h.losses.shown).toMatchObject([{ node: 'mcp-b', sessions: 1, silent_after_ms: Date.parse('2026-11-09T10:00:00.000Z') }]);
  });

  it('stopped before it caught up, the silent node may only be late: the loss is still held back', () => {
    const h = harness();
    h.feed(created('S1', 0) + notFound('S1', 5000, 'mcp-c'));
    h.losses.refresh({ caughtUp: false });
    expect(h.losses.shown).toEqual([]);
    h.feed(rec(5000 + LIVE_SILENCE_MS, { kind: 'stream.opened', session: 'Z1', stream: 'g1', via: 'get', node: 'mcp-c' }));
    h.losses.refresh({ caughtUp: false });
    expect(h.losses.shown).toHaveLength(1);
  });

  it('reads a 404 that came within the rate limit, which a refresh while the log grows would leave for later', () => {
    const h = harness();
    h.feed(created('S1', 0) + created('S2', 10) + notFound('S1', 5000, 'mcp-b'));
    h.losses.refresh();
    h.feed(notFound('S2', 6000, 'mcp-b'));
    h.tick(100);
    h.losses.refresh();
    expect(h.losses.shown).toMatchObject([{ sessions: 1 }]);
    h.losses.refresh({ caughtUp: false });
    expect(h.losses.shown).toMatchObject([{ sessions: 2 }]);
  });
});
