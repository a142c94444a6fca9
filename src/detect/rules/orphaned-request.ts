import { defineRule, type RuleContext } from '../rule.js';
import { findingPerRow } from '../finding-batches.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, duration, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { STREAMS_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions } from '../facts/sessions.js';
import { eachQueryRow, evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

interface OrphanRow {
  session: string;
  at_ms: number;
  request_id: string;
  method: string | null;
  stream: string;
  sent_ts: number;
  how: 'closed' | 'fenced' | 'superseded' | 'session-ended' | 'reconnect-rejected';
  cause_ts: number;
  cause_decision: string | null;
  cause_status: number | null;
  cause_new_stream: string | null;
  timed_out_ts: number | null;
  /** Set where a `poll` close was taken as a close: the revision (without polling) it was judged at. */
  unpolled_version: string | null;
  failed_answers: number;
  evidence: string;
  log_end_ms: number;
  within_window: number | null;
}

function strandedBy(r: OrphanRow): string {
  const moment = at(r.cause_ts);
  switch (r.how) {
    case 'closed':
      return `${r.stream} was closed at ${moment}`;
    case 'fenced':
      return `${r.stream} was fenced at ${moment}`;
    case 'superseded':
      return `${r.stream} was superseded by ${r.cause_decision ?? 'an upgrade'}${r.cause_new_stream ? ` on ${r.cause_new_stream}` : ''} at ${moment}`;
    case 'session-ended':
      return `${r.session} ended at ${moment}`;
    case 'reconnect-rejected':
      return `a reconnect of ${r.session} was rejected (${r.cause_status ?? 'reject'}) at ${moment}`;
  }
}

function orphanedRequest(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const notKnowable: NotKnowable[] = [];
  const judged = function* (): Generator<OrphanRow> {
    for (const r of eachQueryRow<OrphanRow>(db, 'rules/orphaned-request', opts)) {
      if (r.within_window) notKnowable.push(cutShort(r, opts.orphanWindowMs));
      else yield r;
    }
  };
  const findings = findingPerRow(judged(), (r): RawFinding => {
    const cause = strandedBy(r);
    const sequence = r.cause_ts < r.sent_ts ? `it was sent after ${cause}` : `${cause} while it was pending`;
    // a poll close at a revision without polling (2025-03-26, 2025-06-18): its client was told no retry it honours
    const unpolled = r.unpolled_version ? ` (closed for polling, which ${r.unpolled_version} does not have: the close ended the stream)` : '';
    const fate = r.timed_out_ts !== null ? `it timed out at ${at(r.timed_out_ts)} unanswered` : 'it is still unanswered when the log ends';
    const refused = r.failed_answers > 0 ? ` (${plural(r.failed_answers, 'answer')} got an error status and ${r.failed_answers === 1 ? 'was' : 'were'} not taken)` : '';
    return {
      rule: 'orphaned-request',
      session: r.session,
      atMs: r.at_ms,
      message: `server request ${r.request_id}${r.method ? ` (${r.method})` : ''} on ${r.stream} was stranded: ${sequence}${unpolled}; ${fate}${refused}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  }, handOver);
  const proxySessions = queryRows<{ session: string }>(db, 'facts/reconnected-sessions', opts).map((r) => r.session);
  for (const session of proxyOnlySessions(db, proxySessions)) notKnowable.push({ rule: 'orphaned-request', session, reason: STREAMS_HIDDEN });
  return { findings, notKnowable };
}

/** A request the log leaves pending (its at_ms is when it was stranded), cut off within the orphan window (--orphan-window). */
function cutShort(r: OrphanRow, windowMs: number): NotKnowable {
  return {
    rule: 'orphaned-request',
    session: r.session,
    reason:
      `server request ${r.request_id}${r.method ? ` (${r.method})` : ''} is still pending when the log ends, ${duration(r.log_end_ms - r.at_ms)} after ${strandedBy(r)}, ` +
      `within the ${duration(windowMs)} orphan window: the client may still come back for it`,
  };
}

export default defineRule({
  id: 'orphaned-request',
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'A server-to-client request was stranded on a dead stream and never answered.',
  seeds: ['000', '001'],
  explanation: {
    meaning:
      'A server-to-client request (sampling, elicitation, roots) was never answered, re-issued or cancelled; its stream ended or was superseded while it was pending (or a reconnect was rejected), and it timed out or was still pending when the log ends.',
    whyItBreaks:
      'The request belongs to the session but was delivered on one stream only. When that stream died nothing carried it to the session\'s new stream, so the client never knew of it and the server waited for an answer that could not come.',
    shouldHave:
      'When a stream ends or is superseded, re-issue its pending requests on the session\'s new stream under fresh ids (tombstoning the old ones), or fail them explicitly to the application.',
  },
  live: { reads: ['log-end'], settles: 'end-of-log', recheckAfterMs: (opts) => opts.orphanWindowMs },
  detect: (ctx) => orphanedRequest(ctx.db, ctx.opts, ctx.handOver),
});
