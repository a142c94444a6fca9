import type { Db } from '../../store/db.js';

// The events of lane segments, read for all findings in one statement (the ids a message names as
// missing or skipped, and the lines that prove it), and handed over a segment at a time, in the order
// asked: held all at once, the windows of one session the whole log long (one id for every client,
// 3M lines) were 1.3M objects.

export interface LaneSegment {
  session: string;
  lane: string;
  fromPos: number;
  toPos: number;
  /** Beyond `toPos`, one stream's events up to this position too (silent-truncation's window by causality). */
  reach?: { pos: number; stream: string } | null;
}

export interface LaneEvent {
  recordId: number;
  eventId: string;
  pos: number;
}

type Row = [index: number, id: number, eventId: string, lanePos: number];

/** Each segment's events in lane order, one segment per step, in the order of `segments` (an empty segment: none). */
export function* laneEventWindows(db: Db, segments: LaneSegment[]): Generator<LaneEvent[], void, undefined> {
  const last = (s: LaneSegment) => Math.max(s.toPos, s.reach?.pos ?? s.toPos);
  const wanted = segments.filter((s) => last(s) >= s.fromPos);
  const rows: Iterator<Row> | undefined =
    wanted.length === 0
      ? undefined
      : (db
          .prepare(
            `SELECT j.key, e.id, e.event_id, e.lane_pos FROM json_each(?) j
             JOIN events e ON e.session = json_extract(j.value, '$[0]') AND e.lane = json_extract(j.value, '$[1]')
               AND e.lane_pos BETWEEN json_extract(j.value, '$[2]') AND json_extract(j.value, '$[4]')
               AND (e.lane_pos <= json_extract(j.value, '$[3]') OR e.stream = json_extract(j.value, '$[5]'))
             ORDER BY j.key, e.lane_pos`,
          )
          .raw(true)
          .iterate(JSON.stringify(wanted.map((s) => [s.session, s.lane, s.fromPos, s.toPos, last(s), s.reach?.stream ?? null]))) as IterableIterator<Row>);
  try {
    let next = rows?.next();
    let index = 0;
    for (const s of segments) {
      const events: LaneEvent[] = [];
      if (last(s) >= s.fromPos) {
        for (; next !== undefined && !next.done && next.value[0] === index; next = rows!.next()) {
          events.push({ recordId: next.value[1], eventId: next.value[2], pos: next.value[3] });
        }
        index++;
      }
      yield events;
    }
  } finally {
    rows?.return?.();
  }
}
