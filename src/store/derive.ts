import { deferIndexes, stagedLoad, type StagedTable } from './bulk-load.js';
import type { Db } from './db.js';
import type { StreamedFold } from './fold-session.js';
import { dirtySessionChunks, SoloFoldGarbage } from './session-chunks.js';

// Rebuilds the derived timeline (incarnations, streams, events, requests) for
// the sessions touched since the last derive, then clears the dirty set. Only
// pipeline/ calls it (and derive-threads.ts, its two-thread form): live mode's
// rounds derive through pipeline/derived.ts, so the cost follows the batch, not
// the history.
// An ordered read of the dirty sessions' records feeds a per-session fold
// (fold-session.ts), a chunk of sessions at a time (session-chunks.ts): linear,
// where the set-based SQL it replaced went quadratic on UPDATE … FROM over
// unindexed window results.

const DIRTY = 'SELECT session FROM dirty_sessions';

export function deriveTimeline(db: Db): number {
  const dirty = dirtySessions(db);
  if (dirty === 0) {
    // Records without a session make no session dirty, yet a proxy's and a server's of one request pair all the
    // same: a log of session-less lines alone (a 2026-07-28 deployment's) must pair them as one with a session does.
    if (!db.readonly && sessionlessPairPending(db)) db.transaction(() => shadowProxyDuplicates(db))();
    return 0;
  }
  const garbage = new SoloFoldGarbage();
  db.transaction(() => {
    shadowProxyDuplicates(db);
    const load = beginDerivedLoad(db);
    const dirtyChunks = dirtySessionChunks(db);
    for (let i = 0; i < dirtyChunks.chunks; i++) {
      if (dirtyChunks.solo(i)) garbage.settle();
      for (const [session, fold] of dirtyChunks.foldForWriting(i)) load.write(session, fold);
      garbage.written(dirtyChunks.solo(i));
    }
    load.finish();
  })();
  garbage.settle();
  return dirty;
}

export function dirtySessions(db: Db): number {
  return db.prepare('SELECT count(*) FROM dirty_sessions').pluck().get() as number;
}

/**
 * The stages after derive (detect, the read models) take a derived database: pipeline/ derives it. One
 * with sessions left to derive is the caller's mistake, said at once: read as it is, it would answer from
 * a stale timeline, and deriving here would make a reader write the store.
 */
export function assertDerived(db: Db, reader: string): void {
  if (db.prepare('SELECT 1 FROM dirty_sessions LIMIT 1').get() === undefined) return;
  throw new Error(`${reader} was given a database with ${dirtySessions(db)} session(s) not yet derived: derive it first (pipeline/derived.ts)`);
}

export interface DerivedLoad {
  write(session: string, fold: StreamedFold): void;
  /** Rebuilds the deferred indexes and clears the dirty set: the last step before COMMIT. */
  finish(): void;
}

/**
 * The dirty sessions' derived rows replaced, inside the caller's transaction: their old rows go,
 * and the first derive of a log (every table empty now) builds the indexes after the rows.
 */
export function beginDerivedLoad(db: Db): DerivedLoad {
  const tables = ['incarnations', 'streams', 'events', 'requests'] as const;
  for (const t of tables) db.exec(`DELETE FROM ${t} WHERE session IN (${DIRTY})`);
  const rebuildIndexes = tables.map((t) => deferIndexes(db, t));
  const staged = { events: stagedLoad(db, 'events'), requests: stagedLoad(db, 'requests') };
  return {
    write: writers(db, staged),
    finish() {
      for (const table of Object.values(staged)) table.finish();
      for (const rebuild of rebuildIndexes) rebuild();
      db.exec('DELETE FROM dirty_sessions');
    },
  };
}

// Positional parameters: binding by name looks every name up for every row.
function writers(db: Db, staged: Record<'events' | 'requests', StagedTable>): (session: string, f: StreamedFold) => void {
  const inc = db.prepare(
    `INSERT INTO incarnations (session, created_id, created_ts, incarnation, node, owner, ended_id, ended_ts, ended_how, log_evicted)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const stream = db.prepare(
    `INSERT INTO streams (session, stream, lane, via, opened_id, opened_ts, node, conn, principal, closed_id, closed_ts, close_reason,
       fenced_id, fenced_ts, superseded_id, superseded_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const event = db.prepare(
    `INSERT INTO ${staged.events.into} (id, session, stream, lane, event_id, ts_ms, lane_pos, attached, request_id, method)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const request = db.prepare(
    `INSERT INTO ${staged.requests.into} (session, request_id, sent_id, sent_ts, stream, method, event_id, answered_id, answered_ts, cancelled_id,
       reissued_id, timed_out_id, resolved_ts)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (session, f) => {
    for (const r of f.incarnations) {
      inc.run(session, r.created_id, r.created_ts, r.incarnation, r.node, r.owner, r.ended_id, r.ended_ts, r.ended_how, r.log_evicted);
    }
    for (const r of f.streams) {
      stream.run(session, r.stream, r.lane, r.via, r.opened_id, r.opened_ts, r.node, r.conn, r.principal, r.closed_id, r.closed_ts,
        r.close_reason, r.fenced_id, r.fenced_ts, r.superseded_id, r.superseded_ts);
    }
    for (const r of f.events) {
      event.run(r.id, session, r.stream, r.lane, r.event_id, r.ts_ms, r.lane_pos, r.attached, r.request_id, r.method);
    }
    for (const r of f.requests) {
      request.run(session, r.request_id, r.sent_id, r.sent_ts, r.stream, r.method, r.event_id, r.answered_id, r.answered_ts,
        r.cancelled_id, r.reissued_id, r.timed_out_id, r.resolved_ts);
    }
  };
}

/**
 * One request in a proxy log and a server log is counted once, as the server's record. A server
 * that logs `http` records beside its own gives both the same `req`. Without one (no `req`, or one
 * that no server record carries: a proxy's own request id), what is inferred from a proxy line is the server's record of the same kind and session (and
 * Last-Event-ID, or JSON-RPC id) logged while the request lasted: from its `ts` to
 * `ts + duration_ms`, give or take a second.
 */
export function shadowProxyDuplicates(db: Db): void {
  db.exec(`
    UPDATE records SET shadowed = 1
    WHERE origin = 'proxy' AND shadowed = 0 AND req IS NOT NULL
      AND req IN (SELECT req FROM records WHERE origin = 'server' AND req IS NOT NULL)`);
  // Without req, a proxy line is looked up among the server records of its session and kind in its time
  // range. Set apart first, candidates and twins: looked up among all of a session's records, a proxy line of
  // a long SSE stream (its duration the stream's life) read everything its session logged meanwhile.
  // A req that no server record carries (what is left unshadowed after the UPDATE above) is the proxy's own
  // request id, which the server never logged: it pairs nothing, so that line is paired by time too.
  const KINDS = `('upgrade', 'session.created', 'call', 'request.answered')`;
  db.exec(`
    CREATE TEMP TABLE proxy_lines AS
    SELECT id, session, kind, ts_ms, duration_ms, last_event_id, rpc_id, request_id FROM records
    WHERE origin = 'proxy' AND shadowed = 0 AND kind IN ${KINDS}
      -- pairs lie within one session: only the sessions touched since the last derive can gain one
      -- (+session: read by kind, not every record of every session touched)
      AND (+session IN (${DIRTY}) OR +session IS NULL)`);
  if (db.prepare('SELECT 1 FROM proxy_lines LIMIT 1').get() === undefined) {
    db.exec('DROP TABLE temp.proxy_lines');
    return;
  }
  db.exec(`
    CREATE TEMP TABLE server_twins AS
    SELECT session, kind, ts_ms, last_event_id, rpc_id, request_id FROM records
    WHERE session IN (SELECT session FROM proxy_lines) AND kind IN ${KINDS} AND origin = 'server' AND shadowed = 0`);
  if (db.prepare('SELECT 1 FROM proxy_lines WHERE session IS NULL LIMIT 1').get() !== undefined) {
    db.exec(`
      INSERT INTO server_twins SELECT session, kind, ts_ms, last_event_id, rpc_id, request_id FROM records
      WHERE session IS NULL AND kind IN ${KINDS} AND origin = 'server' AND shadowed = 0`);
  }
  db.exec(`
    CREATE INDEX temp.server_twins_at ON server_twins (session, kind, ts_ms);
    UPDATE records SET shadowed = 1
    WHERE id IN (
      SELECT p.id FROM proxy_lines p
      WHERE EXISTS (
        SELECT 1 FROM server_twins s
        WHERE s.session IS p.session AND s.kind = p.kind
          AND s.ts_ms BETWEEN p.ts_ms - ${PAIRING_SLACK_MS} AND p.ts_ms + COALESCE(p.duration_ms, 0) + ${PAIRING_SLACK_MS}
          AND (p.kind <> 'upgrade' OR s.last_event_id IS p.last_event_id)
          AND (p.kind <> 'call' OR s.rpc_id IS p.rpc_id)
          AND (p.kind <> 'request.answered' OR s.request_id IS p.request_id)));
    DROP TABLE temp.server_twins;
    DROP TABLE temp.proxy_lines`);
}

/** How far apart a proxy's and a server's clocks and log points may put one request. */
export const PAIRING_SLACK_MS = 1000;

/**
 * Whether a session-less proxy line not yet set aside has a session-less server record of its kind in its time
 * range: a superset of what shadowProxyDuplicates pairs, asked (both sides through records_session's
 * session IS NULL) before it is run where no session is dirty.
 */
function sessionlessPairPending(db: Db): boolean {
  return (
    db
      .prepare(
        `SELECT 1 FROM records p
         WHERE p.session IS NULL AND p.origin = 'proxy' AND p.shadowed = 0 AND p.kind IN ('upgrade', 'session.created', 'call', 'request.answered')
           AND EXISTS (SELECT 1 FROM records s
             WHERE s.session IS NULL AND s.kind = p.kind AND s.origin = 'server' AND s.shadowed = 0
               AND s.ts_ms BETWEEN p.ts_ms - ${PAIRING_SLACK_MS} AND p.ts_ms + COALESCE(p.duration_ms, 0) + ${PAIRING_SLACK_MS})
         LIMIT 1`,
      )
      .get() !== undefined
  );
}
