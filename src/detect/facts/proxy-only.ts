import type { NotKnowable } from '../../model/finding.js';
import type { Db } from '../../store/db.js';
import { proxyOnlySessions } from './sessions.js';

// What a rule says of a session only a proxy saw: the reasons are shared by
// the rules of one family, so a reader sees one sentence per kind of blindness.

/** Stream versus session resumption: the counters and pending requests live on the server. */
export const SERVER_STATE_HIDDEN = 'proxy log only: the server state behind its upgrades (replay counters, pending requests) is not visible';

/** Writers and in-flight requests: streams and their writers live on the server. */
export const STREAMS_HIDDEN = 'proxy log only: streams, their writers and server requests are not visible';

/** Whether a rule said this because only a proxy saw the session: the session's own lines may change it, the log going on cannot. */
export function isProxyOnlyReason(reason: string): boolean {
  return reason === SERVER_STATE_HIDDEN || reason === STREAMS_HIDDEN;
}

/** Sessions of accepted resumptions/attaches that only a proxy saw: the stream-level rules cannot judge them. */
export function proxyOnlyReconnects(db: Db, rule: string, decisions: string[]): NotKnowable[] {
  const sessions = db
    .prepare(
      `SELECT DISTINCT session FROM upgrades
       WHERE session IS NOT NULL AND status BETWEEN 200 AND 299 AND decision IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(JSON.stringify(decisions)) as string[];
  return [...proxyOnlySessions(db, sessions)].map((session) => ({ rule, session, reason: STREAMS_HIDDEN }));
}
