import { printable } from '../model/printable.js';
import type { Db } from '../store/db.js';
import { holdsSession, sessionIds } from '../store/session-timeline.js';
import { UsageError } from './io.js';
import { nearMatches } from './near-matches.js';

const SHOWN = 10;

/**
 * A session id the log does not hold is a typo until shown otherwise: a gate that
 * filtered on it would pass with "no findings". Names the sessions it was probably
 * meant to be, ranked as an unknown --rule is; else lists the sessions the log has.
 */
export function unknownSessionError(db: Db, session: string, known: readonly string[] = sessionIds(db)): UsageError {
  // Printable here, not only where the message is shown: a line break in an id must not split the message.
  const near = nearMatches(session, known).map(printable);
  if (near.length > 0) return new UsageError(`session ${printable(session)} is not in the log (did you mean ${near.join(', ')}?)`);
  const shown = known.slice(0, SHOWN).map(printable);
  const list = shown.length ? ` (sessions: ${shown.join(', ')}${known.length > SHOWN ? ', …' : ''})` : '';
  return new UsageError(`session ${printable(session)} is not in the log${list}`);
}

/**
 * Throws for the first of `sessions` the log does not hold. Each is looked up on its own: listing every
 * session took seconds at 1M lines (18 s of a 19 s `explain --session` on a kept report); only a
 * mistake, to be matched against them, needs the list.
 */
export function requireKnownSessions(db: Db, sessions: readonly string[]): void {
  const missing = sessions.find((s) => !holdsSession(db, s));
  if (missing !== undefined) throw unknownSessionError(db, missing);
}
