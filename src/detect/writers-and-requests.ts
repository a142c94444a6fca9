import type { NotKnowable } from '../model/finding.js';
import type { RuleId } from '../model/rules.js';
import type { Db } from '../store/db.js';
import { evidenceIds, queryRows } from './query-rows.js';
import { duration, listIds, plural, proxyOnlySessions, when } from './timeline-facts.js';
import type { DetectOptions, Detector, DetectorOutput, RawFinding } from './types.js';

// Writers and in-flight requests (rules.md): one writer per stream lineage,
// nothing written to a superseded stream, no answered request replayed, no
// server request stranded, no stale writer blocking reconnects, no replay to
// a principal that does not own the events.

const PROXY_ONLY = 'proxy log only: streams, their writers and server requests are not visible';

/** Sessions of accepted resumptions/attaches that only a proxy saw: the stream-level rules cannot judge them. */
function proxyOnlyReconnects(db: Db, rule: RuleId, decisions: string[]): NotKnowable[] {
  const sessions = db
    .prepare(
      `SELECT DISTINCT session FROM upgrades
       WHERE session IS NOT NULL AND status BETWEEN 200 AND 299 AND decision IN (SELECT value FROM json_each(?))`,
    )
    .pluck()
    .all(JSON.stringify(decisions)) as string[];
  return [...proxyOnlySessions(db, sessions)].map((session) => ({ rule, session, reason: PROXY_ONLY }));
}

interface DualWriterRow {
  session: string;
  at_ms: number;
  old_stream: string;
  old_via: string | null;
  decision: string;
  last_event_id: string | null;
  new_stream: string | null;
  closed_ts: number | null;
  fenced_ts: number | null;
  evidence: string;
}

function dualWriter(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<DualWriterRow>(db, 'dual-writer', opts).map((r): RawFinding => {
    const upgrade =
      r.decision === 'resume'
        ? `resume of ${r.session} from event ${r.last_event_id ?? '(none)'}${r.new_stream ? ` on ${r.new_stream}` : ''}`
        : `${r.decision} to ${r.session}${r.new_stream ? ` on ${r.new_stream}` : ''}`;
    const retired = [r.closed_ts, r.fenced_ts].filter((t): t is number => t !== null);
    const later = retired.length > 0 ? ` (it was retired only at ${when(Math.min(...retired))})` : '';
    const scope = r.decision === 'attach' ? `the session's standalone stream` : `lineage ${r.old_stream}`;
    return {
      rule: 'dual-writer',
      session: r.session,
      atMs: r.at_ms,
      message: `${upgrade} took over from ${r.old_stream} while ${r.old_stream} was neither closed nor fenced${later}: two writers for ${scope}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  return { findings, notKnowable: proxyOnlyReconnects(db, 'dual-writer', ['resume', 'attach']) };
}

interface LateWriteRow {
  session: string;
  at_ms: number;
  stream: string;
  late_writes: number;
  what: string;
  decision: string;
  new_stream: string | null;
  superseded_ms: number;
  evidence: string;
  late_ids: string;
}

function writeToSupersededStream(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<LateWriteRow>(db, 'write-to-superseded-stream', opts).map(
    (r): RawFinding => ({
      rule: 'write-to-superseded-stream',
      session: r.session,
      atMs: r.at_ms,
      message:
        `${plural(r.late_writes, 'write')} went to ${r.stream} after ${r.decision}${r.new_stream ? ` on ${r.new_stream}` : ''} superseded it at ${when(r.superseded_ms)} ` +
        `(${listIds(r.what.split(', '))}): into a dead stream or a buffer no live lineage replays`,
      // the message counts every late write: cite each (fewest first: the upgrade and the first write lead)
      evidenceIds: [...new Set([...evidenceIds(r.evidence), ...evidenceIds(r.late_ids)])],
    }),
  );
  return { findings, notKnowable: proxyOnlyReconnects(db, 'write-to-superseded-stream', ['resume', 'attach']) };
}

interface AnsweredReplayRow {
  session: string;
  at_ms: number;
  last_event_id: string;
  stream: string | null;
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
  const findings = queryRows<AnsweredReplayRow>(db, 'answered-request-replayed', opts).map((r): RawFinding => {
    const more = r.answered_in_window > 1 ? ` (${r.answered_in_window} answered requests in the window: ${listIds(r.all_requests.split(', '))})` : '';
    return {
      rule: 'answered-request-replayed',
      session: r.session,
      atMs: r.at_ms,
      message:
        `resume of ${r.session} from event ${r.last_event_id}${r.new_stream ? ` on ${r.new_stream}` : ''} replays request ${r.request_id}` +
        `${r.method ? ` (${r.method})` : ''} in event ${r.event_id}, already answered at ${when(r.answered_ms)}: the client receives it twice${more}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  return { findings, notKnowable: proxyOnlyReconnects(db, 'answered-request-replayed', ['resume']) };
}

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
  failed_answers: number;
  evidence: string;
}

function strandedBy(r: OrphanRow): string {
  const at = when(r.cause_ts);
  switch (r.how) {
    case 'closed':
      return `${r.stream} was closed at ${at}`;
    case 'fenced':
      return `${r.stream} was fenced at ${at}`;
    case 'superseded':
      return `${r.stream} was superseded by ${r.cause_decision ?? 'an upgrade'}${r.cause_new_stream ? ` on ${r.cause_new_stream}` : ''} at ${at}`;
    case 'session-ended':
      return `${r.session} ended at ${at}`;
    case 'reconnect-rejected':
      return `a reconnect of ${r.session} was rejected (${r.cause_status ?? 'reject'}) at ${at}`;
  }
}

function orphanedRequest(db: Db, opts: DetectOptions): DetectorOutput {
  const findings = queryRows<OrphanRow>(db, 'orphaned-request', opts).map((r): RawFinding => {
    const cause = strandedBy(r);
    const sequence = r.cause_ts < r.sent_ts ? `it was sent after ${cause}` : `${cause} while it was pending`;
    const fate = r.timed_out_ts !== null ? `it timed out at ${when(r.timed_out_ts)} unanswered` : 'it is still unanswered when the log ends';
    const refused = r.failed_answers > 0 ? ` (${plural(r.failed_answers, 'answer')} got an error status and ${r.failed_answers === 1 ? 'was' : 'were'} not taken)` : '';
    return {
      rule: 'orphaned-request',
      session: r.session,
      atMs: r.at_ms,
      message: `server request ${r.request_id}${r.method ? ` (${r.method})` : ''} on ${r.stream} was stranded: ${sequence}; ${fate}${refused}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  });
  const proxySessions = db.prepare(`SELECT DISTINCT session FROM upgrades WHERE session IS NOT NULL AND decision <> 'fresh'`).pluck().all() as string[];
  const notKnowable = [...proxyOnlySessions(db, proxySessions)].map((session): NotKnowable => ({ rule: 'orphaned-request', session, reason: PROXY_ONLY }));
  return { findings, notKnowable };
}

interface StaleWriterRow {
  session: string;
  at_ms: number;
  stream: string;
  via: string | null;
  status: number | null;
  reason: string | null;
  last_event_id: string | null;
  rejections: number;
  ended_ts: number | null;
  grace_ms: number;
  still_open_at_log_end: number;
  evidence: string;
  reject_ids: string;
}

function staleWriterBlocksReconnect(db: Db, opts: DetectOptions): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of queryRows<StaleWriterRow>(db, 'stale-writer-blocks-reconnect', opts)) {
    if (r.still_open_at_log_end) {
      notKnowable.push({
        rule: 'stale-writer-blocks-reconnect',
        session: r.session,
        reason: `the log ends within the ${duration(r.grace_ms)} fence grace period after the reconnect rejected at ${when(r.at_ms)}, with ${r.stream} still registered`,
      });
      continue;
    }
    const rejected = `${plural(r.rejections, 'reconnect')} of ${r.session} ${r.rejections === 1 ? 'was' : 'were'} rejected (${r.status ?? 'reject'}${r.reason ? ` ${r.reason}` : ''})`;
    const end = r.ended_ts !== null ? `it was retired only at ${when(r.ended_ts)}` : 'it was never closed or fenced';
    findings.push({
      rule: 'stale-writer-blocks-reconnect',
      session: r.session,
      atMs: r.at_ms,
      message:
        `${rejected} from ${when(r.at_ms)} because ${r.stream} was still registered, and ${r.stream} was not closed or fenced ` +
        `within ${duration(r.grace_ms)} (${end}): the session cannot receive server messages`,
      // the message counts every rejection: cite each after the stream, first rejection and late end
      evidenceIds: [...new Set([...evidenceIds(r.evidence), ...evidenceIds(r.reject_ids)])],
    });
  }
  // A proxy sees the 409s but not which stream the server still holds.
  const conflicted = db
    .prepare(`SELECT DISTINCT session FROM upgrades WHERE session IS NOT NULL AND status = 409`)
    .pluck()
    .all() as string[];
  for (const session of proxyOnlySessions(db, conflicted)) notKnowable.push({ rule: 'stale-writer-blocks-reconnect', session, reason: PROXY_ONLY });
  return { findings, notKnowable };
}

interface CrossPrincipalRow {
  upgrade_id: number;
  session: string | null;
  at_ms: number;
  decision: string;
  last_event_id: string | null;
  source_session: string | null;
  owner: string | null;
  client: string | null;
  evidence: string;
}

function crossPrincipalReplay(db: Db, opts: DetectOptions): DetectorOutput {
  const findings: RawFinding[] = [];
  const notKnowable: NotKnowable[] = [];
  for (const r of queryRows<CrossPrincipalRow>(db, 'cross-principal-replay', opts)) {
    const rule = 'cross-principal-replay';
    // No session behind the replayed events (an id no session emitted, presented without a session): nothing to own.
    if (r.source_session === null) continue;
    if (r.owner === null) {
      notKnowable.push({ rule, session: r.session, reason: `no principal is logged for ${r.source_session}: who owns its events is not known` });
      continue;
    }
    if (r.client === null) {
      notKnowable.push({ rule, session: r.session, reason: `the ${r.decision} at ${when(r.at_ms)} logged no principal, nor did a stream on its connection` });
      continue;
    }
    const from = r.last_event_id !== null ? ` from event ${r.last_event_id}` : '';
    const message =
      r.source_session === r.session
        ? `${r.client} was served a ${r.decision} of ${r.session}${from}, but ${r.session} belongs to ${r.owner}: its events were replayed to another principal`
        : `${r.decision} presenting ${r.session ?? 'no session'}${from} replayed events of ${r.source_session} (owner ${r.owner}) to ${r.client}`;
    findings.push({ rule, session: r.session, atMs: r.at_ms, message, evidenceIds: evidenceIds(r.evidence) });
  }
  return { findings, notKnowable };
}

export const writersAndRequests: Detector = {
  rules: ['dual-writer', 'write-to-superseded-stream', 'answered-request-replayed', 'orphaned-request', 'stale-writer-blocks-reconnect', 'cross-principal-replay'],
  run(db, opts) {
    const parts = [dualWriter, writeToSupersededStream, answeredRequestReplayed, orphanedRequest, staleWriterBlocksReconnect, crossPrincipalReplay].map((judge) =>
      judge(db, opts),
    );
    return {
      findings: parts.flatMap((p) => p.findings),
      notKnowable: parts.flatMap((p) => p.notKnowable),
    };
  },
};
