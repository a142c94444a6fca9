import type { Db } from '../../store/db.js';
import type { DetectOptions } from '../types.js';
import { eachQueryRow, evidenceIds, queryRows } from '../query-rows.js';
import type { LaneSegment } from './lane-events.js';

// The events write-to-superseded-stream reports: written to a stream after an accepted upgrade had superseded
// it, into "a buffer no live lineage replays". A resumption of another stream of that lineage does not owe them,
// so silent-truncation leaves them out of its window (the lane still numbers them: they were written to the
// lineage's old stream). A resumption of the very stream they were written to still owes them: they were sent on
// that stream after its Last-Event-ID, read as the stream or as its lineage. Asked of the rule's own query, so the
// two rules cannot disagree on which writes are late.

export interface LateWrites {
  /** Is this event record a late write to another stream than `resumed`? */
  unowed(recordId: number, resumed: string): boolean;
  /** How many late writes to other streams than `resumed` lie in a window as laneEventWindows reads it. */
  countIn(window: LaneSegment, resumed: string): number;
}

/** Where none was asked for, or none was written. */
export const NO_LATE_WRITES: LateWrites = { unowed: () => false, countIn: () => 0 };

/** The late writes in these windows' lanes (none asked, or none there: NO_LATE_WRITES, the rule's query not run). */
export function loadLateWrites(db: Db, opts: DetectOptions, windows: LaneSegment[]): LateWrites {
  if (windows.length === 0) return NO_LATE_WRITES;
  const asked = JSON.stringify(windows.map((w) => [w.session, w.lane, w.fromPos, Math.max(w.toPos, w.reach?.pos ?? w.toPos)]));
  if (queryRows(db, 'facts/superseded-writes-in-windows', opts, { windows: asked }).length === 0) return NO_LATE_WRITES;
  const ids: number[] = [];
  for (const row of eachQueryRow<{ late_ids: string }>(db, 'rules/write-to-superseded-stream', opts)) ids.push(...evidenceIds(row.late_ids));
  if (ids.length === 0) return NO_LATE_WRITES;
  // Plumbing, not a question for queries/: the lane places of records already chosen, looked up by id.
  const rows = db
    .prepare('SELECT id, session, lane, lane_pos, stream FROM events WHERE id IN (SELECT value FROM json_each(?)) AND lane IS NOT NULL')
    .all(JSON.stringify(ids)) as { id: number; session: string; lane: string; lane_pos: number; stream: string }[];
  // sorted lane positions, per lane and per lane and stream: a window is counted by two binary searches
  const byLane = new Map<string, number[]>();
  const byStream = new Map<string, number[]>();
  const streamOf = new Map<number, string>();
  const add = (map: Map<string, number[]>, key: string, pos: number) => (map.get(key) ?? map.set(key, []).get(key)!).push(pos);
  for (const r of rows) {
    streamOf.set(r.id, r.stream);
    add(byLane, laneKey(r.session, r.lane), r.lane_pos);
    add(byStream, laneKey(r.session, r.lane, r.stream), r.lane_pos);
  }
  for (const list of [...byLane.values(), ...byStream.values()]) list.sort((a, b) => a - b);
  return {
    unowed: (recordId, resumed) => (streamOf.get(recordId) ?? resumed) !== resumed,
    countIn(w, resumed) {
      const onStream = (stream: string, from: number, to: number) => between(byStream.get(laneKey(w.session, w.lane, stream)), from, to);
      const inLane = between(byLane.get(laneKey(w.session, w.lane)), w.fromPos, w.toPos) - onStream(resumed, w.fromPos, w.toPos);
      if (w.reach == null || w.reach.pos <= w.toPos || w.reach.stream === resumed) return inLane;
      return inLane + onStream(w.reach.stream, Math.max(w.fromPos, w.toPos + 1), w.reach.pos);
    },
  };
}

/** How many of the sorted positions lie in [from, to]. */
function between(sorted: number[] | undefined, from: number, to: number): number {
  if (sorted === undefined || to < from) return 0;
  return firstAtLeast(sorted, to + 1) - firstAtLeast(sorted, from);
}

function firstAtLeast(sorted: number[], pos: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const laneKey = (...parts: string[]) => JSON.stringify(parts);
