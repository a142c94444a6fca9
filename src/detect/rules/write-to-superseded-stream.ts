import { defineRule, type RuleContext } from '../rule.js';
import { findingPerRow } from '../finding-batches.js';
import { at, listIds, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { proxyOnlyReconnects } from '../facts/proxy-only.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';

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

function writeToSupersededStream(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const findings = findingPerRow(eachQueryRow<LateWriteRow>(db, 'rules/write-to-superseded-stream', opts), (r): RawFinding => ({
    rule: 'write-to-superseded-stream',
    session: r.session,
    atMs: r.at_ms,
    message:
      `${plural(r.late_writes, 'write')} went to ${r.stream} after ${r.decision}${r.new_stream ? ` on ${r.new_stream}` : ''} superseded it at ${at(r.superseded_ms)} ` +
      `(${listIds(r.what.split(', '))}): into a dead stream or a buffer no live lineage replays`,
    // the message counts every late write: cite each (fewest first: the upgrade and the first write lead)
    evidenceIds: [...new Set([...evidenceIds(r.evidence), ...evidenceIds(r.late_ids)])],
  }), handOver);
  return { findings, notKnowable: proxyOnlyReconnects(db, 'write-to-superseded-stream', ['resume', 'attach']) };
}

export default defineRule({
  id: 'write-to-superseded-stream',
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'An event or request was written to a stream after it was superseded.',
  seeds: ['001'],
  explanation: {
    meaning:
      'An event or server request was emitted on a stream after an accepted upgrade had superseded that stream.',
    whyItBreaks:
      'After a resumption or attach the new stream carries the lineage and the old one is dead. A write to it goes to a socket nobody reads, or into a buffer no live stream will replay: the message is lost.',
    shouldHave:
      'Route every write to the current stream of its lineage, and fence a superseded stream so that nothing can be written to it.',
  },
  live: { reads: [], settles: 'at-once' },
  detect: (ctx) => writeToSupersededStream(ctx.db, ctx.opts, ctx.handOver),
});
