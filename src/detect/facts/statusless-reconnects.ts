import type { NotKnowable } from '../../model/finding.js';
import { at } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { queryRows } from '../query-rows.js';
import type { DetectOptions } from '../types.js';

// log-format.md: "accepted means a 2xx status", and of the counters, "absent is unknown, not zero: the rules
// that need it are then not knowable for that upgrade". An upgrade that logged no status is the same case: the
// rules that judge accepted reconnects once passed it without a word (a short replay, unseen).

interface Row {
  id: number;
  session: string;
  ts_ms: number;
  decision: 'resume' | 'attach';
  names_position: number;
}

/**
 * Not-knowable entries for `rule`, one per reconnect without a status that it would judge: a stream
 * resumption (Last-Event-ID) for silent-truncation, a session resumption (none) for replay-on-attach.
 */
export function statuslessReconnects(db: Db, opts: DetectOptions, rule: 'silent-truncation' | 'replay-on-attach'): NotKnowable[] {
  const wanted = rule === 'silent-truncation' ? 1 : 0;
  return queryRows<Row>(db, 'facts/statusless-reconnects', opts)
    .filter((u) => u.names_position === wanted)
    .map((u) => ({
      rule,
      session: u.session,
      reason:
        rule === 'silent-truncation'
          ? `the resumption at ${at(u.ts_ms)} logged no status: whether it was accepted, and its replay then complete, cannot be told`
          : `the ${u.decision} at ${at(u.ts_ms)} without Last-Event-ID logged no status: whether it was accepted, and then replayed nothing, cannot be told`,
    }));
}
