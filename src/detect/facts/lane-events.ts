import type { Db } from '../../store/db.js';

// The events of lane segments, fetched for all findings in one statement (the
// ids a message names as missing or skipped, and the lines that prove it).

export interface LaneSegment {
  session: string;
  lane: string;
  fromPos: number;
  toPos: number;
}

export interface LaneEvent {
  recordId: number;
  eventId: string;
  pos: number;
}

const key = (s: LaneSegment) => JSON.stringify([s.session, s.lane, s.fromPos, s.toPos]);

export function laneEvents(db: Db, segments: LaneSegment[]): (s: LaneSegment) => LaneEvent[] {
  const found = new Map<string, LaneEvent[]>();
  const wanted = segments.filter((s) => s.toPos >= s.fromPos);
  if (wanted.length > 0) {
    const rows = db
      .prepare(
        `SELECT j.key AS k, e.id, e.event_id, e.lane_pos FROM json_each(?) j
         JOIN events e ON e.session = json_extract(j.value, '$[0]') AND e.lane = json_extract(j.value, '$[1]')
           AND e.lane_pos BETWEEN json_extract(j.value, '$[2]') AND json_extract(j.value, '$[3]')
         ORDER BY j.key, e.lane_pos`,
      )
      .all(JSON.stringify(wanted.map((s) => [s.session, s.lane, s.fromPos, s.toPos]))) as { k: number; id: number; event_id: string; lane_pos: number }[];
    for (const r of rows) {
      const k = key(wanted[r.k]!);
      const list = found.get(k) ?? [];
      list.push({ recordId: r.id, eventId: r.event_id, pos: r.lane_pos });
      found.set(k, list);
    }
  }
  return (s) => found.get(key(s)) ?? [];
}
