import type { Db } from '../store/db.js';
import { sessionIds } from '../store/timeline.js';
import { UsageError } from './io.js';

const SHOWN = 10;

/**
 * A session id the log does not hold is a typo until shown otherwise: a gate that
 * filtered on it would pass with "no findings". Lists the sessions the log has.
 */
export function unknownSessionError(db: Db, session: string): UsageError {
  const known = sessionIds(db).slice(0, SHOWN);
  const list = known.length ? ` (sessions: ${known.join(', ')}${known.length === SHOWN ? ', …' : ''})` : '';
  return new UsageError(`session ${session} is not in the log${list}`);
}

/** Throws for the first of `sessions` the log does not hold. */
export function requireKnownSessions(db: Db, sessions: readonly string[]): void {
  if (sessions.length === 0) return;
  const known = new Set(sessionIds(db));
  const missing = sessions.find((s) => !known.has(s));
  if (missing !== undefined) throw unknownSessionError(db, missing);
}
