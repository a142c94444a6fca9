import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput } from '../types.js';
import type { Db } from '../../store/db.js';
import { defineRule } from '../rule.js';
import { isStatelessEra } from '../../model/record.js';
import { atProtocol, revisionNamed } from '../../replay/revision-named.js';

// event-id-without-session: a Last-Event-ID without Mcp-Session-Id was
// accepted as a resume or attach. An event id is a position within one
// session's stream; without the session it can only have been resolved
// against a global log, or not at all: where the upgrade replayed nothing,
// the server took the cursor and dropped it, and its 2xx hides that.
// SQL: queries/rules/event-id-without-session.sql.

interface Row {
  at_ms: number;
  last_event_id: string;
  decision: string;
  status: number;
  node: string | null;
  /** The request's protocol version, where logged. */
  version: string | null;
  /** 1 where the upgrade counted no replay and named no replayed event (0 or NULL: it replayed, or the counter is absent). */
  replayed_nothing: number | null;
  evidence: string;
}

/** How the message of an accepted cursor that was not resolved at all ends (fixed text after every logged value: explain reads it back). */
const CURSOR_DROPPED = 'the 2xx tells the client its position was honoured, so it cannot tell its cursor was dropped';

function judgeEventIdsWithoutSession(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<Row>(db, 'rules/event-id-without-session', opts).map((r) => ({
    rule: 'event-id-without-session' as const,
    session: null,
    atMs: r.at_ms,
    message: isStatelessEra(r.version ?? undefined)
      ? // No session is normal there (SEP-2567): the fault is resolving the header at all (SEP-2575).
        `accepted ${r.decision === 'attach' ? 'an attach' : 'a resume'} (status ${r.status}${r.node ? ` on node ${r.node}` : ''}) carrying Last-Event-ID ${r.last_event_id} ${atProtocol(r.version!)}: ` +
        `a request of that revision has no Mcp-Session-Id by design, and the fault is the resumption: that revision has no Last-Event-ID, the server must ignore the header and serve the request on its own`
      : r.replayed_nothing
        ? `accepted ${r.decision === 'attach' ? 'an attach' : 'a resume'} (status ${r.status}${r.node ? ` on node ${r.node}` : ''}) carrying Last-Event-ID ${r.last_event_id} but no Mcp-Session-Id, and ignored the cursor (replayed nothing): ${CURSOR_DROPPED}`
        : `accepted ${r.decision === 'attach' ? 'an attach' : 'a resume'} (status ${r.status}${r.node ? ` on node ${r.node}` : ''}) carrying Last-Event-ID ${r.last_event_id} but no Mcp-Session-Id: the event id can only have been resolved against a global log, not a session's stream`,
    evidenceIds: evidenceIds(r.evidence),
  }));
  return { findings, notKnowable: [] };
}

export default defineRule({
  id: 'event-id-without-session',
  severity: 'error',
  family: 'replay-integrity',
  summary: 'A Last-Event-ID without Mcp-Session-Id was accepted.',
  seeds: ['000'],
  explanation: {
    meaning:
      'A request carried Last-Event-ID but no Mcp-Session-Id, and the server accepted it.',
    whyItBreaks:
      'An event id is a position within a stream, and every stream belongs to a session. Without the session id there is nothing to scope the position to, so any replay comes from a global log, possibly from another client.',
    shouldHave:
      'Reject a Last-Event-ID that arrives without Mcp-Session-Id (400 or 404), so that the client initializes a session first. At 2026-07-28 and later, which have neither sessions nor initialize, ignore the header instead and serve the request on its own.',
    fitted: (message) =>
      revisionNamed(message)?.rules.resumption === false
        ? {
            whyItBreaks:
              'At 2026-07-28 and later no request has a session (SEP-2567) and Last-Event-ID resumption is gone (SEP-2575), so a request without Mcp-Session-Id is normal. A server that still resolves the header replays from a log the request has no claim to: a global one, possibly another client\'s.',
            shouldHave:
              'Ignore Last-Event-ID on a request at 2026-07-28 or later (that revision\'s transport, Backward Compatibility: "A Last-Event-ID header: ignore it") and serve the request on its own, replaying nothing. Do not answer it 400 or 404, and do not expect an initialize: that revision has neither sessions nor initialize.',
          }
        : message.endsWith(CURSOR_DROPPED)
          ? {
              whyItBreaks:
                'An event id is a position within a stream, and every stream belongs to a session: without the session id there is nothing to scope it to. This server accepted the cursor and replayed nothing, so it resolved it against nothing, yet its 2xx tells the client the stream goes on from its position: the events the client missed are neither delivered nor reported missing.',
            }
          : undefined,
  },
  live: { reads: ['sessionless-records'], settles: 'at-once' },
  detect: (ctx) => judgeEventIdsWithoutSession(ctx.db, ctx.opts),
});
