import { describe, expect, it } from 'vitest';
import { laneEventWindows, type LaneSegment } from '../../src/detect/facts/lane-events.js';
import { deriveTimeline } from '../../src/store/derive.js';
import { at, workspaceOf } from '../helpers/logs.js';

// silent-truncation's witnesses: each window's events, handed over a window at a time in the order asked
// (one statement for all of them, never all of them held at once).

describe('laneEventWindows', () => {
  it('gives each segment its events in lane order, an empty or reversed one none, a repeated one again', async () => {
    const ws = await workspaceOf([
      { ts: at(0), kind: 'session.created', session: 'S1' },
      { ts: at(1), kind: 'stream.opened', session: 'S1', stream: 'g1', via: 'get' },
      ...[1, 2, 3, 4, 5].map((n) => ({ ts: at(1 + n), kind: 'event.sent', session: 'S1', stream: 'g1', event_id: n })),
      { ts: at(10), kind: 'stream.opened', session: 'S1', stream: 'g2', via: 'get' },
      { ts: at(11), kind: 'event.sent', session: 'S1', stream: 'g2', event_id: 'x' },
    ]);
    try {
      deriveTimeline(ws.db);
      const seg = (lane: string, fromPos: number, toPos: number): LaneSegment => ({ session: 'S1', lane, fromPos, toPos });
      const windows = [...laneEventWindows(ws.db, [seg('g1', 2, 4), seg('g1', 3, 2), seg('g2', 1, 1), seg('g1', 2, 4), seg('g9', 1, 5)])];
      expect(windows.map((w) => w.map((e) => e.eventId))).toEqual([['2', '3', '4'], [], ['x'], ['2', '3', '4'], []]);
      expect(windows[0]!.map((e) => e.pos)).toEqual([2, 3, 4]);
      // stopped early, the statement is let go: the connection answers the next query
      const partial = laneEventWindows(ws.db, [seg('g1', 1, 5), seg('g2', 1, 1)]);
      expect(partial.next().value?.length).toBe(5);
      partial.return();
      expect(ws.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(6);
    } finally {
      ws.db.close();
    }
  });
});
