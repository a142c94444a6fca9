import type { Db } from './db.js';
import { deriveTimeline } from './derive.js';

// Read model for one session's story: what `timeline` prints and the TUI drill-down shows.

export interface TimelineRecord {
  id: number;
  file: string;
  line: number;
  ts_ms: number;
  kind: string;
  origin: string;
  node: string | null;
  session: string | null;
  stream: string | null;
  lane: string | null;
  [column: string]: unknown;
}

export interface LaneInfo {
  stream: string;
  lane: string;
  via: string | null;
  opened_ts: number | null;
  closed_ts: number | null;
  close_reason: string | null;
  fenced_ts: number | null;
  superseded_ts: number | null;
}

export interface IncarnationInfo {
  created_ts: number;
  incarnation: string | null;
  node: string | null;
  owner: string | null;
  ended_ts: number | null;
  ended_how: string | null;
}

export interface SessionTimeline {
  session: string;
  incarnations: IncarnationInfo[];
  lanes: LaneInfo[];
  records: TimelineRecord[];
}

/** Everything logged about one session id, in log order, with file:line; undefined when the log never names it. */
export function sessionTimeline(db: Db, session: string): SessionTimeline | undefined {
  deriveTimeline(db);
  // Two indexed lookups rather than one OR, which would scan every upgrade.
  const statement = db
    .prepare(
      `SELECT r.*, s.name AS file, st.lane AS lane FROM records r
       JOIN sources s ON s.id = r.source_id
       LEFT JOIN streams st ON st.session = r.session AND st.stream = COALESCE(r.new_stream, r.stream)
       WHERE r.shadowed = 0 AND r.session = @session
       UNION ALL
       SELECT r.*, s.name AS file, NULL AS lane FROM records r
       JOIN sources s ON s.id = r.source_id
       WHERE r.new_session = @session AND r.kind = 'upgrade' AND r.shadowed = 0 AND r.session IS NOT @session
       ORDER BY ts_ms, id`,
    )
    .raw(true);
  const records = compactRows(statement.columns().map((c) => c.name), statement.all({ session }) as unknown[][]);
  if (records.length === 0) return undefined;
  const incarnations = db
    .prepare('SELECT created_ts, incarnation, node, owner, ended_ts, ended_how FROM incarnations WHERE session = ? ORDER BY created_ts, created_id')
    .all(session) as IncarnationInfo[];
  const lanes = db
    .prepare(
      `SELECT stream, lane, via, opened_ts, closed_ts, close_reason, fenced_ts, superseded_ts FROM streams
       WHERE session = ? ORDER BY COALESCE(opened_ts, 0), stream`,
    )
    .all(session) as LaneInfo[];
  return { session, incarnations, lanes, records };
}

/** The columns every row keeps; the other fifty or so appear where the record set them. */
const ALWAYS = new Set(['id', 'file', 'line', 'ts_ms', 'kind', 'origin', 'node', 'session', 'stream', 'lane']);

/**
 * Rows as objects of the columns a record set: a record sets a dozen of the records table's columns, and a
 * soak test's session is hundreds of thousands of records (as full rows, 100k of them held 380 MB).
 */
function compactRows(columns: string[], rows: unknown[][]): TimelineRecord[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    values.forEach((v, i) => {
      if (v !== null || ALWAYS.has(columns[i]!)) row[columns[i]!] = v;
    });
    return row as TimelineRecord;
  });
}

/** Session ids the log names, most recently active first (for listings and the TUI). */
export function sessionIds(db: Db): string[] {
  return db
    .prepare("SELECT session FROM records WHERE session IS NOT NULL AND shadowed = 0 AND kind <> 'http' GROUP BY session ORDER BY max(ts_ms) DESC")
    .pluck()
    .all() as string[];
}
