import type { Db } from '../../store/db.js';

// Which sessions a rule can judge at all: several rules ask these of their
// candidate sessions, as one list (one query, not one per session).

/**
 * Of the given sessions, those with no server record: a proxy log sees headers and statuses only. A stale
 * header that only stateless-era requests presented (stale_session_ids) is no session: nothing of it is hidden.
 */
export function proxyOnlySessions(db: Db, sessions: Iterable<string>): Set<string> {
  return sessionsWhere(
    db,
    sessions,
    `NOT EXISTS (SELECT 1 FROM records r WHERE r.session = c.value AND r.origin = 'server' AND r.shadowed = 0)
     AND c.value NOT IN (SELECT session FROM stale_session_ids)`,
  );
}

/** Of the given sessions, those whose creation is not in the log: their history before the log starts is unknown. */
export function uncreatedSessions(db: Db, sessions: Iterable<string>): Set<string> {
  return sessionsWhere(db, sessions, `NOT EXISTS (SELECT 1 FROM incarnations i WHERE i.session = c.value)`);
}

function sessionsWhere(db: Db, sessions: Iterable<string>, condition: string): Set<string> {
  const list = [...new Set(sessions)];
  if (list.length === 0) return new Set();
  const rows = db.prepare(`SELECT c.value AS s FROM json_each(?) c WHERE ${condition}`).pluck().all(JSON.stringify(list)) as string[];
  return new Set(rows);
}
