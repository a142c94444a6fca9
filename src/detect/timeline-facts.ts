import type { Db } from '../store/db.js';

// Facts about the timeline that several detectors need to decide whether a
// rule can be judged at all, and to present evidence in log order. Every
// function takes the candidate sessions as one list (one query, not one per
// session).

/** Of the given sessions, those with no server record: a proxy log sees headers and statuses only. */
export function proxyOnlySessions(db: Db, sessions: Iterable<string>): Set<string> {
  return sessionsWhere(
    db,
    sessions,
    `NOT EXISTS (SELECT 1 FROM records r WHERE r.session = c.value AND r.origin = 'server' AND r.shadowed = 0)`,
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

/** Message wording shared with the replay-integrity family: ISO instants and "1 event" / "3 events". */
export { at as when, plural } from '../model/phrasing.js';

/** "a, b, c" or "a, b, c and 4 more": ids named in a message without flooding it. */
export function listIds(ids: readonly (string | number | null | undefined)[], max = 5): string {
  const shown = ids.filter((x) => x !== null && x !== undefined).map(String);
  if (shown.length <= max) return shown.join(', ');
  return `${shown.slice(0, max).join(', ')} and ${shown.length - max} more`;
}

/** A threshold as people say it: "10 s", "1500 ms". */
export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
