import type { ContextNeed } from '../detect/rule.js';
import { RULES } from '../detect/rules/index.js';
import type { Db } from '../store/db.js';
import type { ContextIndex } from './context-index.js';

// What live mode copies beside the sessions it re-judges: each need a rule
// module declares (detect/rule.ts, `live.reads`) is implemented here once.
// The session-less records and the log's last record are copied by scope.ts.

/** The needs of the rules that run (all but the disabled ones). */
export function neededContext(disabled: readonly string[]): Set<ContextNeed> {
  const off = new Set(disabled);
  return new Set(RULES.filter((r) => !off.has(r.id)).flatMap((r) => r.live.reads));
}

type Add = (rows: unknown[]) => void;

/** The other sessions the subjects' cross-session rules look things up in, for the needs given. */
export function contextSessions(db: Db, subjects: string[], needs: ReadonlySet<ContextNeed>, dupWindowMs: number, index: ContextIndex): Set<string> {
  const out = new Set<string>();
  if (subjects.length === 0) return out;
  const add: Add = (rows) => {
    for (const s of rows) if (typeof s === 'string') out.add(s);
  };
  // In this order: the principals of the sessions already found feed same-tool-calls.
  if (needs.has('event-id-owners')) eventIdOwners(db, subjects, add);
  if (needs.has('same-tool-calls')) sameToolCalls(db, subjects, out, add, dupWindowMs, index);
  if (needs.has('sessions-on-conn')) sessionsOnConn(db, subjects, add, index);
  return out;
}

/**
 * foreign-event-id's question, "another session sent this id before the reconnect, its own had not", asked per
 * batch (a query file runs over the whole log): its other copies are queries/facts/reconnect-references.sql
 * (own_id, other_session_id: the rules') and queries/facts/foreign-last-event-ids.sql (the engine replay's).
 * A change to what "foreign" means (rules.md foreign-event-id) changes all three.
 *
 * The first and the last other session that emitted an event id a subject's reconnect names, before it,
 * and the first to emit it at all: phantom-event-id takes an id first logged soon after the reconnect for
 * one a node with a clock ahead sent before it (CLOCK_SKEW_ALLOWANCE_MS).
 */
function eventIdOwners(db: Db, subjects: string[], add: Add): void {
  // First by time, as reconnect-references.sql names the other sender: by id alone, a log whose times are out of
  // order copied another session than the one analyze names.
  const firstOther = db
    .prepare('SELECT session FROM events WHERE event_id = ? AND session <> ? AND (ts_ms, id) < (?, ?) ORDER BY ts_ms, id LIMIT 1')
    .pluck();
  const lastOther = db
    .prepare('SELECT session FROM events WHERE event_id = ? AND session <> ? AND (ts_ms, id) < (?, ?) ORDER BY ts_ms DESC, id DESC LIMIT 1')
    .pluck();
  const firstEver = db.prepare('SELECT session FROM events WHERE event_id = ? ORDER BY ts_ms, id LIMIT 1').pluck();
  for (const r of unplacedReferences(db, subjects)) {
    const at = [r.event_id, r.session, r.ts_ms, r.id] as const;
    add([firstOther.get(...at), lastOther.get(...at), firstEver.get(r.event_id)]);
  }
}

/**
 * The references (reconnectReferences) to an event id their own session had not emitted by then: only
 * for these does who else sent it matter. The own-session test of foreign-event-id's question, copied from
 * queries/facts/reconnect-references.sql (see eventIdOwners).
 */
export function unplacedReferences(db: Db, of: string[] | { after: number }): EventIdReference[] {
  const own = db.prepare('SELECT 1 FROM events WHERE event_id = ? AND session = ? AND (ts_ms, id) < (?, ?) LIMIT 1');
  return reconnectReferences(db, of).filter((r) => own.get(r.event_id, r.session, r.ts_ms, r.id) === undefined);
}

export interface EventIdReference {
  session: string;
  id: number;
  ts_ms: number;
  event_id: string;
}

/**
 * The event ids the sessions' reconnects name, with the record they are judged at: a Last-Event-ID,
 * a first replayed id, each replayed id, an event.replayed.
 */
function reconnectReferences(db: Db, of: string[] | { after: number }): EventIdReference[] {
  // A few sessions through records_session; the records after a rowid (the last round's) by that range.
  const where = (t: string) =>
    Array.isArray(of) ? `${t}session IN (SELECT value FROM json_each(?)) AND +${t}kind` : `${t}id > ? AND ${t}session IS NOT NULL AND +${t}kind`;
  return db
    .prepare(
      `SELECT session, id, ts_ms, last_event_id AS event_id FROM records
       WHERE ${where('')} = 'upgrade' AND last_event_id IS NOT NULL
       UNION ALL
       SELECT session, id, ts_ms, first_replayed FROM records
       WHERE ${where('')} = 'upgrade' AND first_replayed IS NOT NULL
       UNION ALL
       SELECT u.session, u.id, u.ts_ms, CAST(j.value AS TEXT) FROM records u, json_each(u.replayed_ids) j
       WHERE ${where('u.')} = 'upgrade' AND u.replayed_ids IS NOT NULL
       UNION ALL
       SELECT session, id, ts_ms, event_id FROM records
       WHERE ${where('')} = 'event.replayed' AND event_id IS NOT NULL`,
    )
    .all(...Array<string | number>(4).fill(Array.isArray(of) ? JSON.stringify(of) : of.after)) as EventIdReference[];
}

/** Sessions that ran the same tool and arguments within the window, and the 404s and session creations for their principals in that span. */
function sameToolCalls(db: Db, subjects: string[], found: ReadonlySet<string>, add: Add, dupWindowMs: number, index: ContextIndex): void {
  const list = subjects.map(() => '?').join(',');
  const calls = db
    .prepare(`SELECT id, ts_ms, tool, args_hash FROM records WHERE session IN (${list}) AND +kind = 'call' AND tool IS NOT NULL AND args_hash IS NOT NULL`)
    .all(...subjects) as { id: number; ts_ms: number; tool: string; args_hash: string }[];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const c of calls) {
    for (const twin of index.sameCalls(c.tool, c.args_hash, c.ts_ms - dupWindowMs, c.ts_ms + dupWindowMs, c.id)) {
      add([twin.session]);
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
    const involved = [...subjects, ...found];
    const principals = db
      .prepare(`SELECT DISTINCT principal FROM records WHERE session IN (${involved.map(() => '?').join(',')}) AND principal IS NOT NULL`)
      .pluck()
      .all(...involved) as string[];
    const created = db.prepare("SELECT DISTINCT session FROM records WHERE kind = 'session.created' AND ts_ms BETWEEN ? AND ? AND principal = ?").pluck();
    for (const p of principals) add(created.all(lo, hi, p));
  }
}

/** A reconnect without a principal is attributed to the stream opened on its connection, in whatever session. */
function sessionsOnConn(db: Db, subjects: string[], add: Add, index: ContextIndex): void {
  const list = subjects.map(() => '?').join(',');
  const conns = db
    .prepare(`SELECT DISTINCT conn FROM records WHERE session IN (${list}) AND +kind = 'upgrade' AND principal IS NULL AND conn IS NOT NULL`)
    .pluck()
    .all(...subjects) as string[];
  for (const conn of conns) add([...index.sessionsOnConn(conn)]);
}
