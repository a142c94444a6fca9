import { defineRule } from '../rule.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, duration, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { STREAMS_HIDDEN } from '../facts/proxy-only.js';
import { proxyOnlySessions } from '../facts/sessions.js';
import { eachQueryRow, evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

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
  for (const r of eachQueryRow<StaleWriterRow>(db, 'rules/stale-writer-blocks-reconnect', opts)) {
    if (r.still_open_at_log_end) {
      notKnowable.push({
        rule: 'stale-writer-blocks-reconnect',
        session: r.session,
        reason: `the log ends within the ${duration(r.grace_ms)} fence grace period after the reconnect rejected at ${at(r.at_ms)}, with ${r.stream} still registered`,
      });
      continue;
    }
    const cited = evidenceIds(r.reject_ids);
    const rejected =
      `${plural(r.rejections, 'reconnect')} of ${r.session} ${r.rejections === 1 ? 'was' : 'were'} rejected (${r.status ?? 'reject'}${r.reason ? ` ${r.reason}` : ''}` +
      `${r.rejections > cited.length ? `; the first ${cited.length} cited` : ''})`;
    const end = r.ended_ts !== null ? `it was retired only at ${at(r.ended_ts)}` : 'it was never closed or fenced';
    findings.push({
      rule: 'stale-writer-blocks-reconnect',
      session: r.session,
      atMs: r.at_ms,
      message:
        `${rejected} from ${at(r.at_ms)} because ${r.stream} was still registered, and ${r.stream} was not closed or fenced ` +
        `within ${duration(r.grace_ms)} (${end}): the session cannot receive server messages`,
      // the message counts every rejection: cite them after the stream, first rejection and late end (the first REJECTIONS_CITED)
      evidenceIds: [...new Set([...evidenceIds(r.evidence), ...cited])],
    });
  }
  // A proxy sees the 409s but not which stream the server still holds.
  const conflicted = queryRows<{ session: string }>(db, 'facts/conflicted-sessions', opts).map((r) => r.session);
  for (const session of proxyOnlySessions(db, conflicted)) notKnowable.push({ rule: 'stale-writer-blocks-reconnect', session, reason: STREAMS_HIDDEN });
  return { findings, notKnowable };
}

export default defineRule({
  id: 'stale-writer-blocks-reconnect',
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'Reconnects were rejected because an unfenced stale writer stayed registered.',
  seeds: ['001'],
  explanation: {
    meaning:
      'Reconnects of a session were rejected as conflicts because an earlier stream was still registered, and that stream was neither closed nor fenced within the fence grace period (default 5 s) after the first rejection.',
    whyItBreaks:
      'A half-open socket can look alive for minutes. Waiting for it to close keeps the session\'s only writer on a dead stream: the session can no longer receive server messages, and the client keeps retrying.',
    shouldHave:
      'Fence a prior writer it cannot prove alive within a bounded grace period, then accept the reconnect; never wait for the old socket to close on its own.',
  },
  live: { reads: ['log-end'], settles: 'at-once', recheckAfterMs: (opts) => opts.fenceGraceMs },
  detect: (ctx) => staleWriterBlocksReconnect(ctx.db, ctx.opts),
});
