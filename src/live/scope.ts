import type { Finding, NotKnowable } from '../model/finding.js';
import { detect, type RunOptions } from '../detect/run.js';
import { DEFAULT_DETECT_OPTIONS } from '../detect/types.js';
import { openDb, type Db } from '../store/db.js';
import type { ContextIndex } from './context-index.js';

// Detection scoped to the sessions a batch touched. The detectors judge the
// whole database they are given, and some of their queries grow faster than
// the log (a 100k-record database takes minutes), so live mode hands them a
// scratch database that holds only the touched sessions, plus the few other
// sessions their cross-session rules look things up in:
//   - for an event id one of their reconnects refers to that the session had
//     not emitted itself by then, the first and the last other session that
//     had (foreign-event-id, phantom-event-id, cross-principal-replay);
//   - sessions that executed the same tool with the same arguments within the
//     duplicate-call window, and, where there are such, the sessions where a
//     POST got 404 or a session was created for one of their principals in
//     that window (duplicate-tool-call);
//   - sessions with a stream on the connection of a reconnect that logged no
//     principal (cross-principal-replay's client);
// and the records without a session that are new since the last run
// (event-id-without-session), and the record that ends the log so far
// (stale-writer-blocks-reconnect asks how long the log went on). Findings are kept only for the touched sessions
// (and those new session-less records): a context session is there to be
// looked up, not judged, since its own context is not all there.

export interface ScopedRun {
  /** The sessions judged: their current findings replace the earlier ones. */
  sessions: string[];
  findings: Finding[];
  /** What could not be judged for the judged sessions (and why). */
  notKnowable: NotKnowable[];
  /** Sessions copied for lookups only. */
  contextSessions: number;
  records: number;
}

/** Sessions per scratch database: a catch-up over a large file is judged in slices of this many. */
export const SCOPE_CHUNK = 200;

const TABLES = ['records', 'incarnations', 'streams', 'events', 'requests'] as const;

/**
 * Judges `sessions` (already derived) and the session-less records with ids
 * above `newFromId`. The caller's database is only read.
 */
export function detectScoped(db: Db, index: ContextIndex, sessions: string[], newFromId: number, opts: RunOptions = {}, logEndId?: number): ScopedRun[] {
  const out: ScopedRun[] = [];
  index.update();
  const sessionless = db.prepare('SELECT 1 FROM records WHERE id > ? AND +session IS NULL LIMIT 1').get(newFromId) !== undefined;
  const slice = (part: string[], from: number) => detectSlice(db, index, part, { newFromId: from, logEndId }, opts);
  if (sessions.length === 0 && sessionless) out.push(slice([], newFromId));
  for (let i = 0; i < sessions.length; i += SCOPE_CHUNK) {
    // Session-less records ride with the first slice only.
    out.push(slice(sessions.slice(i, i + SCOPE_CHUNK), i === 0 && sessionless ? newFromId : NONE_NEW));
  }
  return out;
}

interface Extra {
  /** Session-less records above this id are judged. */
  newFromId: number;
  /**
   * The record that ends the log so far: a rule that asks how long the log went
   * on after a moment (stale-writer-blocks-reconnect) must see the whole log's end.
   */
  logEndId: number | undefined;
}

const NONE_NEW = Number.MAX_SAFE_INTEGER;

function detectSlice(db: Db, index: ContextIndex, subjects: string[], extra: Extra, opts: RunOptions): ScopedRun {
  const context = contextSessions(db, subjects, opts.duplicateCallWindowMs ?? DEFAULT_DETECT_OPTIONS.duplicateCallWindowMs, index);
  for (const s of subjects) context.delete(s);
  const scratch = openDb(':memory:');
  try {
    const records = copyScope(db, scratch, [...subjects, ...context], extra);
    const judged = new Set(subjects);
    const report = detect(scratch, opts);
    const findings = report.findings.filter((f) => (f.session === null ? true : judged.has(f.session)));
    const notKnowable = report.not_knowable.filter((n) => n.session !== null && judged.has(n.session));
    return { sessions: subjects, findings, notKnowable, contextSessions: context.size, records };
  } finally {
    scratch.close();
  }
}

/** The other sessions the subjects' cross-session rules look up (see the top of this file). */
export function contextSessions(db: Db, subjects: string[], dupWindowMs: number, index: ContextIndex): Set<string> {
  const out = new Set<string>();
  if (subjects.length === 0) return out;
  const add = (rows: unknown[]) => {
    for (const s of rows) if (typeof s === 'string') out.add(s);
  };
  const list = subjects.map(() => '?').join(',');

  // Event ids the subjects' reconnects name, with the reconnect they are judged at. Another session
  // is looked up only for an id the session itself had not emitted by then.
  const refs = db
    .prepare(
      `SELECT session, id, ts_ms, last_event_id AS event_id FROM records
       WHERE session IN (${list}) AND +kind = 'upgrade' AND last_event_id IS NOT NULL
       UNION ALL
       SELECT session, id, ts_ms, first_replayed FROM records
       WHERE session IN (${list}) AND +kind = 'upgrade' AND first_replayed IS NOT NULL
       UNION ALL
       SELECT u.session, u.id, u.ts_ms, CAST(j.value AS TEXT) FROM records u, json_each(u.replayed_ids) j
       WHERE u.session IN (${list}) AND +u.kind = 'upgrade' AND u.replayed_ids IS NOT NULL
       UNION ALL
       SELECT session, id, ts_ms, event_id FROM records
       WHERE session IN (${list}) AND +kind = 'event.replayed' AND event_id IS NOT NULL`,
    )
    .all(...subjects, ...subjects, ...subjects, ...subjects) as { session: string; id: number; ts_ms: number; event_id: string }[];
  const own = db.prepare('SELECT 1 FROM events WHERE event_id = ? AND session = ? AND (ts_ms, id) < (?, ?) LIMIT 1');
  const firstOther = db.prepare('SELECT session FROM events WHERE event_id = ? AND session <> ? AND (ts_ms, id) < (?, ?) ORDER BY id LIMIT 1').pluck();
  const lastOther = db
    .prepare('SELECT session FROM events WHERE event_id = ? AND session <> ? AND (ts_ms, id) < (?, ?) ORDER BY ts_ms DESC, id DESC LIMIT 1')
    .pluck();
  for (const r of refs) {
    const at = [r.event_id, r.session, r.ts_ms, r.id] as const;
    if (own.get(...at) !== undefined) continue;
    add([firstOther.get(...at), lastOther.get(...at)]);
  }

  // Retried tool calls: the same tool and arguments within the window, in any session.
  const calls = db
    .prepare(`SELECT id, ts_ms, tool, args_hash FROM records WHERE session IN (${list}) AND +kind = 'call' AND tool IS NOT NULL AND args_hash IS NOT NULL`)
    .all(...subjects) as { id: number; ts_ms: number; tool: string; args_hash: string }[];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const c of calls) {
    for (const twin of index.sameCalls(c.tool, c.args_hash, c.ts_ms - dupWindowMs, c.ts_ms + dupWindowMs, c.id)) {
      out.add(twin.session);
      lo = Math.min(lo, c.ts_ms, twin.ts);
      hi = Math.max(hi, c.ts_ms, twin.ts);
    }
  }
  if (lo <= hi) {
    // What makes a retry a duplicate: a POST that got 404, a session created for the same principal.
    add(
      db
        .prepare(
          `SELECT DISTINCT COALESCE(session, json_extract(req_headers, '$."mcp-session-id"')) FROM records
           WHERE kind IN ('http', 'call', 'request.answered') AND ts_ms BETWEEN ? AND ? AND status = 404`,
        )
        .pluck()
        .all(lo, hi),
    );
    const involved = [...subjects, ...out];
    const principals = db
      .prepare(`SELECT DISTINCT principal FROM records WHERE session IN (${involved.map(() => '?').join(',')}) AND principal IS NOT NULL`)
      .pluck()
      .all(...involved) as string[];
    const created = db.prepare("SELECT DISTINCT session FROM records WHERE kind = 'session.created' AND ts_ms BETWEEN ? AND ? AND principal = ?").pluck();
    for (const p of principals) add(created.all(lo, hi, p));
  }

  // A reconnect without a principal is attributed to the stream opened on its connection, in whatever session.
  const conns = db
    .prepare(`SELECT DISTINCT conn FROM records WHERE session IN (${list}) AND +kind = 'upgrade' AND principal IS NULL AND conn IS NOT NULL`)
    .pluck()
    .all(...subjects) as string[];
  for (const conn of conns) add([...index.sessionsOnConn(conn)]);
  return out;
}

/** Copies the sessions' records and derived rows (and every source, for evidence) into the scratch database. */
function copyScope(from: Db, to: Db, sessions: string[], extra: Extra): number {
  let records = 0;
  to.transaction(() => {
    copyRows(from, to, 'sources', 'SELECT * FROM sources', []);
    for (let i = 0; i < sessions.length; i += 500) {
      const part = sessions.slice(i, i + 500);
      const list = part.map(() => '?').join(',');
      for (const t of TABLES) {
        const n = copyRows(from, to, t, `SELECT * FROM ${t} WHERE session IN (${list})`, part);
        if (t === 'records') records += n;
      }
      // A fresh upgrade that minted one of them without presenting a session belongs to its story.
      records += copyRows(from, to, 'records', `SELECT * FROM records WHERE kind = 'upgrade' AND session IS NULL AND new_session IN (${list})`, part);
    }
    if (extra.newFromId < NONE_NEW) {
      records += copyRows(from, to, 'records', 'SELECT * FROM records WHERE id > ? AND +session IS NULL', [extra.newFromId]);
    }
    if (extra.logEndId !== undefined) records += copyRows(from, to, 'records', 'SELECT * FROM records WHERE id = ?', [extra.logEndId]);
  })();
  return records;
}

function copyRows(from: Db, to: Db, table: string, select: string, params: unknown[]): number {
  const stmt = from.prepare(select).raw();
  const columns = stmt.columns().length;
  const insert = to.prepare(`INSERT OR IGNORE INTO ${table} VALUES (${new Array(columns).fill('?').join(',')})`);
  let n = 0;
  for (const row of stmt.iterate(...params) as Iterable<unknown[]>) {
    insert.run(...row);
    n++;
  }
  return n;
}
