import { defineRule } from '../rule.js';
import { at, listIds } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { proxyOnlyReconnects } from '../facts/proxy-only.js';
import { evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

interface AnsweredReplayRow {
  session: string;
  at_ms: number;
  last_event_id: string;
  /** The stream that sent the Last-Event-ID event (the cursor's), not the one the resumption opened. */
  anchor_stream: string;
  new_stream: string | null;
  request_id: string;
  method: string | null;
  event_id: string;
  answered_ms: number;
  answered_in_window: number;
  all_requests: string;
  evidence: string;
}

function answeredRequestReplayed(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<AnsweredReplayRow>(db, 'rules/answered-request-replayed', opts).map((r): RawFinding => {
    const more = r.answered_in_window > 1 ? ` (${r.answered_in_window} answered requests in the window: ${listIds(r.all_requests.split(', '))})` : '';
    return {
      rule: 'answered-request-replayed',
      session: r.session,
      atMs: r.at_ms,
      message:
        `resume of ${r.session} from event ${r.last_event_id} on ${r.anchor_stream}${r.new_stream ? ` (new stream ${r.new_stream})` : ''} replays request ${r.request_id}` +
        `${r.method ? ` (${r.method})` : ''} in event ${r.event_id}, already answered at ${at(r.answered_ms)}: the client receives it twice${more}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  return { findings, notKnowable: proxyOnlyReconnects(db, 'answered-request-replayed', ['resume']) };
}

export default defineRule({
  id: 'answered-request-replayed',
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'A replay window held a server request that was already answered.',
  seeds: ['001'],
  explanation: {
    meaning:
      'A resumption\'s replay window (after Last-Event-ID, up to the reconnect) held a server-to-client request that the client had already answered.',
    whyItBreaks:
      'A replay copies a stream by position, but an answered request is session state that has moved on. Replaying it makes the client handle it a second time (another sampling, another elicitation prompt); leaving it out would leave a gap.',
    shouldHave:
      'Reject the resumption when its window holds an already-answered request, and let the client start a fresh session.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => answeredRequestReplayed(ctx.db, ctx.opts),
});
