import type { Db } from './db.js';
import { assertDerived } from './derive.js';

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
  /** The accepted upgrade that superseded the stream (its record id, as records[].id), and where the log has it. */
  superseded_id: number | null;
  superseded_file: string | null;
  superseded_line: number | null;
  /** The stream that upgrade opened. */
  superseded_by_stream: string | null;
  /**
   * Superseded before it closed or was fenced: two streams of one lineage open at once, the fact behind a
   * dual writer. False for the usual resumption of a stream already ended; null when never superseded.
   */
  superseded_while_open: boolean | null;
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
  /** The revision the session speaks (the session_versions view), where its records log one. */
  protocol_version?: string;
  incarnations: IncarnationInfo[];
  lanes: LaneInfo[];
  records: TimelineRecord[];
}

/** A session's timeline whose records are read as they are iterated (each iteration reads them again). */
export interface SessionTimelineStream extends Omit<SessionTimeline, 'records'> {
  records: Iterable<TimelineRecord>;
}

/**
 * Everything logged about one session id, in log order, with file:line; undefined when the log never names
 * it. The records are read row by row as they are iterated, never held here: a soak test's session is
 * hundreds of thousands (the HTML report draws 160 of them; held whole they took 800 MB). The database is
 * a derived one (pipeline/derived.ts `sessionTimelineOf` derives first): the store is written before, never
 * while, they are read.
 */
export function sessionTimelineStream(db: Db, session: string): SessionTimelineStream | undefined {
  assertDerived(db, 'sessionTimelineStream');
  if (!namesSession(db, session)) return undefined;
  const incarnations = db
    .prepare('SELECT created_ts, incarnation, node, owner, ended_ts, ended_how FROM incarnations WHERE session = ? ORDER BY created_ts, created_id')
    .all(session) as IncarnationInfo[];
  // Log order is (ts, id), as the fold orders records: a close logged in the same millisecond as the upgrade but before it ended the stream first.
  const lanes = (
    db
      .prepare(
        `SELECT st.stream, st.lane, st.via, st.opened_ts, st.closed_ts, st.close_reason, st.fenced_ts, st.superseded_ts,
           st.superseded_id, src.name AS superseded_file, u.line AS superseded_line, u.new_stream AS superseded_by_stream,
           CASE WHEN st.superseded_id IS NULL THEN NULL
             ELSE (st.closed_id IS NULL OR (st.closed_ts, st.closed_id) > (st.superseded_ts, st.superseded_id))
              AND (st.fenced_id IS NULL OR (st.fenced_ts, st.fenced_id) > (st.superseded_ts, st.superseded_id)) END AS superseded_while_open
         FROM streams st
         LEFT JOIN records u ON u.id = st.superseded_id
         LEFT JOIN sources src ON src.id = u.source_id
         WHERE st.session = ? ORDER BY COALESCE(st.opened_ts, 0), st.stream`,
      )
      .all(session) as (Omit<LaneInfo, 'superseded_while_open'> & { superseded_while_open: number | null })[]
  ).map((l) => ({ ...l, superseded_while_open: l.superseded_while_open === null ? null : l.superseded_while_open === 1 }));
  const version = db.prepare('SELECT protocol_version FROM session_versions WHERE session = ?').pluck().get(session) as string | null | undefined;
  return {
    session,
    ...(typeof version === 'string' && { protocol_version: version }),
    incarnations,
    lanes,
    records: { [Symbol.iterator]: () => timelineRecords(db, session) },
  };
}

/** Whether the log names the session: a record of it, or an upgrade that minted it from another id (what its timeline reads). */
function namesSession(db: Db, session: string): boolean {
  return (
    db.prepare('SELECT 1 FROM records WHERE session = ? AND shadowed = 0 LIMIT 1').get(session) !== undefined ||
    db.prepare("SELECT 1 FROM records WHERE new_session = ? AND kind = 'upgrade' AND shadowed = 0 AND session IS NOT ? LIMIT 1").get(session, session) !== undefined
  );
}

function* timelineRecords(db: Db, session: string): Generator<TimelineRecord> {
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
  const columns = statement.columns().map((c) => c.name);
  for (const values of statement.iterate({ session }) as IterableIterator<unknown[]>) yield compactRow(columns, values);
}

/** The columns every row keeps; the other fifty or so appear where the record set them. */
const ALWAYS = new Set(['id', 'file', 'line', 'ts_ms', 'kind', 'origin', 'node', 'session', 'stream', 'lane']);

/**
 * A row as an object of the columns the record set: a record sets a dozen of the records table's columns, and a
 * soak test's session is hundreds of thousands of records (as full rows, 100k of them held 380 MB).
 */
function compactRow(columns: string[], values: unknown[]): TimelineRecord {
  const row: Record<string, unknown> = {};
  values.forEach((v, i) => {
    if (v !== null || ALWAYS.has(columns[i]!)) row[columns[i]!] = v;
  });
  return row as TimelineRecord;
}

/** The records by which the log names a session, as its listings do: no http line, none shadowed. */
const NAMES_SESSION = "shadowed = 0 AND kind <> 'http'";

/** Session ids the log names, most recently active first (for listings and the TUI). */
export function sessionIds(db: Db): string[] {
  return db
    .prepare(`SELECT session FROM records WHERE session IS NOT NULL AND ${NAMES_SESSION} GROUP BY session ORDER BY max(ts_ms) DESC`)
    .pluck()
    .all() as string[];
}

/** Whether the log names this session, as sessionIds would list it: one probe of the session index, not a pass over every record. */
export function holdsSession(db: Db, session: string): boolean {
  return db.prepare(`SELECT 1 FROM records WHERE session = ? AND ${NAMES_SESSION} LIMIT 1`).get(session) !== undefined;
}
