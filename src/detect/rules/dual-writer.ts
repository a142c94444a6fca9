import { defineRule, type RuleContext } from '../rule.js';
import { findingPerRow } from '../finding-batches.js';
import { at } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { proxyOnlyReconnects } from '../facts/proxy-only.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

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

function dualWriter(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const findings = findingPerRow(eachQueryRow<DualWriterRow>(db, 'rules/dual-writer', opts), (r): RawFinding => {
    const upgrade =
      r.decision === 'resume'
        ? `resume of ${r.session} from event ${r.last_event_id ?? '(none)'}${r.new_stream ? ` on ${r.new_stream}` : ''}`
        : `${r.decision} to ${r.session}${r.new_stream ? ` on ${r.new_stream}` : ''}`;
    const retired = [r.closed_ts, r.fenced_ts].filter((t): t is number => t !== null);
    const later = retired.length > 0 ? ` (it was retired only at ${at(Math.min(...retired))})` : '';
    const scope = r.decision === 'attach' ? `the session's standalone stream` : `lineage ${r.old_stream}`;
    return {
      rule: 'dual-writer',
      session: r.session,
      atMs: r.at_ms,
      message: `${upgrade} took over from ${r.old_stream} while ${r.old_stream} was neither closed nor fenced${later}: two writers for ${scope}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  }, handOver);
  return { findings, notKnowable: proxyOnlyReconnects(db, 'dual-writer', ['resume', 'attach']) };
}

export default defineRule({
  id: 'dual-writer',
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'An upgrade superseded a stream that was neither closed nor fenced: two writers.',
  seeds: ['001'],
  explanation: {
    meaning:
      'An accepted upgrade superseded a stream that was neither closed nor fenced at that moment: two writers for one stream lineage (or, on an attach, for the session\'s standalone stream).',
    whyItBreaks:
      'A resumed stream continues one lineage, and only one writer may hold it. An old stream still registered as live (a half-open socket) keeps receiving server messages that go nowhere, while the new stream never sees them.',
    shouldHave:
      'Fence the prior stream (retire its writer) before attaching the new one; when fencing cannot be confirmed within the grace period, reject the reconnect rather than race two writers.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => dualWriter(ctx.db, ctx.opts, ctx.handOver),
});
