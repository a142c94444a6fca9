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
  /** The first accepted resumption of its lineage that replayed its event, or resumed from it (queries/rules/orphaned-request.sql). */
  carried_ts: number | null;
  carried_how: 'replayed' | 'received' | null;
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
    const fate = fateOf(r);
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

/**
 * What became of the request after it was stranded, the end of the message (findings/identity.ts cuts it off:
 * later lines change it). Where a resumption of its lineage replayed it, or resumed from its own event (the
 * client had it), it says so: it is still an orphan (re-issued under a fresh id or failed, rules.md asks), but
 * not one the client never saw. Times and counts only, never a logged value.
 */
function fateOf(r: OrphanRow): string {
  const timedOut = r.timed_out_ts !== null ? at(r.timed_out_ts) : undefined;
  if (r.carried_ts === null) return timedOut !== undefined ? `it timed out at ${timedOut} unanswered` : 'it is still unanswered when the log ends';
  const carried =
    r.carried_how === 'received'
      ? `the client had received it (its event was the Last-Event-ID of a resumption at ${at(r.carried_ts)}) but it`
      : `it was replayed on the resumed lineage at ${at(r.carried_ts)} but`;
  return timedOut !== undefined
    ? `${carried}${r.carried_how === 'received' ? ' was' : ''} never answered, re-issued or cancelled before it timed out at ${timedOut}`
    : `${carried} is still unanswered when the log ends`;
}

/**
 * The fates fateOf gives a carried request, read back by explain. Anchored at the end, past every logged value:
 * a request id or method that reads like one is followed by the real fate, which starts with "; ".
 */
const REPLAYED_FATE = /; it was replayed on the resumed lineage at [0-9T:.Z+-]+ but [^;]*$/;
const RECEIVED_FATE = /; the client had received it \(its event was the Last-Event-ID of a resumption at [0-9T:.Z+-]+\) but it [^;]*$/;

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
      'The request belongs to the session but was delivered on one stream only. When that stream died nothing re-issued it on the session\'s new stream or failed it. Unless a resumption replayed it (the message says so where one did), the client never knew of it; either way the server waited for an answer that did not come, with nothing to tell the application.',
    shouldHave:
      'When a stream ends or is superseded, re-issue its pending requests on the session\'s new stream under fresh ids (tombstoning the old ones), or fail them explicitly to the application.',
    fitted: (message) =>
      REPLAYED_FATE.test(message)
        ? {
            whyItBreaks:
              'The request belongs to the session but was delivered on one stream only. When that stream died, a resumption replayed it on the resumed lineage under its old id, but nothing re-issued it under a fresh id or failed it, and no answer came: the server waited on it until it timed out or the log ended, with nothing to tell the application.',
          }
        : RECEIVED_FATE.test(message)
          ? {
              whyItBreaks:
                'The client had the request: a resumption named its event as Last-Event-ID. But the request was tied to a stream that died, and nothing re-issued it on the session\'s new stream under a fresh id or failed it, and no answer came: the server waited on it until it timed out or the log ended, with nothing to tell the application.',
            }
          : undefined,
  },
  live: { reads: ['log-end'], settles: 'end-of-log', recheckAfterMs: (opts) => opts.orphanWindowMs },
  detect: (ctx) => orphanedRequest(ctx.db, ctx.opts, ctx.handOver),
});
