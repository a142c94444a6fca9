import type { Db } from './db.js';
import { foldSession, type FoldRecord } from './fold-session.js';

// Rebuilds the derived timeline (incarnations, streams, events, requests) for
// the sessions touched since the last derive, then clears the dirty set. Live
// mode calls this per batch, so the cost follows the batch, not the history.
// An ordered read of the dirty sessions' records feeds a per-session fold
// (fold-session.ts): linear, where the set-based SQL it replaced went
// quadratic on UPDATE … FROM over unindexed window results.

const DIRTY = 'SELECT session FROM dirty_sessions';

const FOLD_COLUMNS =
  'r.session, r.id, r.ts_ms, r.kind, r.node, r.principal, r.incarnation, r.stream, r.sequence, r.conn, r.via, r.reason, r.log_evicted, ' +
  'r.event_id, r.rpc_kind, r.rpc_id, r.method, r.attached, r.last_event_id, r.new_stream, r.decision, r.status, r.request_id';

export function deriveTimeline(db: Db): number {
  const dirty = db.prepare('SELECT count(*) FROM dirty_sessions').pluck().get() as number;
  if (dirty === 0) return 0;
  db.transaction(() => {
    shadowProxyDuplicates(db);
    for (const t of ['incarnations', 'streams', 'events', 'requests']) db.exec(`DELETE FROM ${t} WHERE session IN (${DIRTY})`);
    const write = writers(db);
    // better-sqlite3 cannot write while a read is open: read a chunk of sessions whole, then write it.
    const sessions = db.prepare('SELECT session FROM dirty_sessions ORDER BY session').pluck().all() as string[];
    const CHUNK = 256;
    for (let i = 0; i < sessions.length; i += CHUNK) {
      const part = sessions.slice(i, i + CHUNK);
      const rows = db
        .prepare(
          `SELECT ${FOLD_COLUMNS} FROM records r WHERE r.session IN (${part.map(() => '?').join(',')}) AND r.shadowed = 0 ORDER BY r.session, r.ts_ms, r.id`,
        )
        .all(...part) as (FoldRecord & { session: string })[];
      let start = 0;
      for (let k = 1; k <= rows.length; k++) {
        if (k === rows.length || rows[k]!.session !== rows[start]!.session) {
          write(rows[start]!.session, rows.slice(start, k));
          start = k;
        }
      }
    }
    db.exec('DELETE FROM dirty_sessions');
  })();
  return dirty;
}

function writers(db: Db): (session: string, records: FoldRecord[]) => void {
  const inc = db.prepare(
    `INSERT INTO incarnations (session, created_id, created_ts, incarnation, node, owner, ended_id, ended_ts, ended_how, log_evicted)
     VALUES (@session, @created_id, @created_ts, @incarnation, @node, @owner, @ended_id, @ended_ts, @ended_how, @log_evicted)`,
  );
  const stream = db.prepare(
    `INSERT INTO streams (session, stream, lane, via, opened_id, opened_ts, node, conn, principal, closed_id, closed_ts, close_reason,
       fenced_id, fenced_ts, superseded_id, superseded_ts)
     VALUES (@session, @stream, @lane, @via, @opened_id, @opened_ts, @node, @conn, @principal, @closed_id, @closed_ts, @close_reason,
       @fenced_id, @fenced_ts, @superseded_id, @superseded_ts)`,
  );
  const event = db.prepare(
    `INSERT INTO events (id, session, stream, lane, event_id, ts_ms, lane_pos, attached, request_id, method)
     VALUES (@id, @session, @stream, @lane, @event_id, @ts_ms, @lane_pos, @attached, @request_id, @method)`,
  );
  const request = db.prepare(
    `INSERT INTO requests (session, request_id, sent_id, sent_ts, stream, method, event_id, answered_id, answered_ts, cancelled_id,
       reissued_id, timed_out_id, resolved_ts)
     VALUES (@session, @request_id, @sent_id, @sent_ts, @stream, @method, @event_id, @answered_id, @answered_ts, @cancelled_id,
       @reissued_id, @timed_out_id, @resolved_ts)`,
  );
  return (session, records) => {
    const f = foldSession(records);
    for (const r of f.incarnations) inc.run({ session, ...r });
    for (const r of f.streams) stream.run({ session, ...r });
    for (const r of f.events) event.run({ session, ...r });
    for (const r of f.requests) request.run({ session, ...r });
  };
}

/** A server that logs `http` records beside its own gives both the same `req`: count that request once. */
function shadowProxyDuplicates(db: Db): void {
  db.exec(`
    UPDATE records SET shadowed = 1
    WHERE origin = 'proxy' AND shadowed = 0 AND req IS NOT NULL
      AND req IN (SELECT req FROM records WHERE origin = 'server' AND req IS NOT NULL)`);
}
