import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput } from '../types.js';
import type { Db } from '../../store/db.js';

// event-id-without-session: a Last-Event-ID without Mcp-Session-Id was
// accepted as a resume or attach. An event id is a position within one
// session's stream; without the session it can only have been resolved
// against a global log. SQL: queries/rules/event-id-without-session.sql.

interface Row {
  at_ms: number;
  last_event_id: string;
  decision: string;
  status: number;
  node: string | null;
  evidence: string;
}

export function judgeEventIdsWithoutSession(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<Row>(db, 'event-id-without-session', opts).map((r) => ({
    rule: 'event-id-without-session' as const,
    session: null,
    atMs: r.at_ms,
    message: `accepted ${r.decision === 'attach' ? 'an attach' : 'a resume'} (status ${r.status}${r.node ? ` on node ${r.node}` : ''}) carrying Last-Event-ID ${r.last_event_id} but no Mcp-Session-Id: the event id can only have been resolved against a global log, not a session's stream`,
    evidenceIds: evidenceIds(r.evidence),
  }));
  return { findings, notKnowable: [] };
}
