import { defineRule, type RuleContext } from '../rule.js';
import { findingPerRow } from '../finding-batches.js';
import { at, duration, silentWriterNode } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { proxyOnlyReconnects } from '../facts/proxy-only.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import type { DetectOptions, DetectorOutput, RawFinding } from '../types.js';
import type { NotKnowable } from '../../model/finding.js';
import { CROSS_NODE_ORDER_MS } from '../../model/thresholds.js';

interface DualWriterRow {
  session: string;
  at_ms: number;
  up_node: string | null;
  retired_node: string | null;
  old_node: string | null;
  /** The old writer's node's last line, where another node took over. */
  old_node_last_ms: number | null;
  old_stream: string;
  old_via: string | null;
  decision: string;
  last_event_id: string | null;
  new_stream: string | null;
  closed_ts: number | null;
  fenced_ts: number | null;
  /** Another node logs the old stream's opening this long after the takeover (within the clock-skew allowance). */
  opened_after_ms: number | null;
  /** Another node logs sending the takeover's Last-Event-ID or an event it replayed this long after it: the largest. */
  sent_after_ms: number | null;
  sent_after_event: string | null;
  sent_after_node: string | null;
  lane: string;
  /** Where the old stream is its lineage's live head: the earlier resumption that opened it (rules/dual-writer.sql). */
  head_opened_id: number | null;
  head_opened_ms: number | null;
  /** The head's first event written after the takeover, if any: the second writer at work. */
  head_write_event: string | null;
  evidence: string;
}

/** The takeover's lines in an impossible order: the other node's clock runs ahead by at least `gapMs`. */
interface Inversion {
  gapMs: number;
  what: 'opened' | 'sent' | 'replayed';
  node: string;
  eventId: string | null;
}

// A writer another node retired within CROSS_NODE_ORDER_MS after the takeover may have been fenced first:
// the nodes' clocks cannot tell (model/thresholds.ts), so the session is not knowable rather than a finding.
// Where the takeover's own lines prove that node's clock ahead (it logs after the takeover the opening of the
// stream taken over, or the send of an event the takeover resumed from or replayed), the margin grows by that much.
function dualWriter(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const unordered = new Map<string, NotKnowable>();
  const rows = eachQueryRow<DualWriterRow>(db, 'rules/dual-writer', opts);
  const judged = function* () {
    for (const r of rows) {
      const retiredMs = retiredAt(r);
      const crossNode = r.retired_node !== null && r.up_node !== null && r.retired_node !== r.up_node;
      const skew = inversionOf(r);
      const ahead = skew !== undefined && skew.node === r.retired_node ? skew.gapMs : 0;
      if (crossNode && retiredMs !== undefined && retiredMs - r.at_ms <= CROSS_NODE_ORDER_MS + ahead) {
        if (!unordered.has(r.session)) unordered.set(r.session, { rule: RULE, session: r.session, reason: unorderedReason(r, retiredMs, skew) });
      } else yield r;
    }
  };
  const findings = findingPerRow(judged(), (r): RawFinding => {
    const upgrade =
      r.decision === 'resume'
        ? // The new stream apart: "from event 1007 on g2" read as if g2 had sent event 1007.
          `resume of ${r.session} from event ${r.last_event_id ?? '(none)'}${r.new_stream ? ` (new stream ${r.new_stream})` : ''}`
        : `${r.decision} to ${r.session}${r.new_stream ? ` on ${r.new_stream}` : ''}`;
    const retired = retiredAt(r);
    const later = retired !== undefined ? ` (it was retired only at ${at(retired)})` : '';
    const scope = r.decision === 'attach' ? `the session's standalone stream` : `lineage ${r.head_opened_id !== null ? r.lane : r.old_stream}`;
    return {
      rule: RULE,
      session: r.session,
      atMs: r.at_ms,
      message: `${upgrade} took over from ${r.old_stream} while ${r.old_stream} was neither closed nor fenced${later}: two writers for ${scope}${liveHead(r)}${silentNode(r)}${impossibleOrderNote(r)}`,
      evidenceIds: evidenceIds(r.evidence),
    };
  }, handOver);
  const proxyOnly = proxyOnlyReconnects(db, RULE, ['resume', 'attach']).filter((n) => n.session === null || !unordered.has(n.session));
  return { findings, notKnowable: [...proxyOnly, ...unordered.values()] };
}

const RULE = 'dual-writer';

/**
 * A node that wrote the old stream and logged nothing after, before another node took over, may have died
 * (a crash, a restart): its stream then died with it, a close no log shows. The finding stands (the server
 * that took over could not know), and says so, for a reader who knows the node was restarted.
 */
function silentNode(r: DualWriterRow): string {
  if (r.old_node_last_ms === null || r.old_node_last_ms >= r.at_ms) return '';
  return ` (${silentWriterNode(r.old_node!, [r.old_stream], r.old_node_last_ms)})`;
}

/**
 * A resumption from a position an earlier accepted resumption already took over does not name the stream that
 * earlier one opened, so the message says why that stream is the one taken over: the lineage's live uplink.
 */
function liveHead(r: DualWriterRow): string {
  if (r.head_opened_id === null || r.head_opened_ms === null) return '';
  const wrote = r.head_write_event !== null ? `, and it wrote event ${r.head_write_event} after the takeover` : '';
  return ` (${r.old_stream} was the lineage's live uplink, opened by the resume at ${at(r.head_opened_ms)}${wrote})`;
}

/** When the old stream was first closed or fenced after the takeover (undefined: never). */
function retiredAt(r: DualWriterRow): number | undefined {
  const retired = [r.closed_ts, r.fenced_ts].filter((t): t is number => t !== null);
  return retired.length > 0 ? Math.min(...retired) : undefined;
}

function unorderedReason(r: DualWriterRow, retiredMs: number, skew: Inversion | undefined): string {
  const gap = retiredMs - r.at_ms;
  const when = gap === 0 ? 'in the same millisecond as the takeover' : `${gap} ms after the takeover`;
  if (skew !== undefined && gap > CROSS_NODE_ORDER_MS) {
    return (
      `${r.old_stream} was retired on ${r.retired_node} ${when} on ${r.up_node} at ${at(r.at_ms)}, but the takeover's own lines are in an impossible order: ` +
      `${inversionWords(r, skew)}, so ${behindBy(r, skew)}. Less than ${duration(CROSS_NODE_ORDER_MS)} apart beyond that, ` +
      `which the two clocks cannot order, so whether it was fenced first cannot be told`
    );
  }
  return (
    `${r.old_stream} was retired on ${r.retired_node} ${when} on ${r.up_node} at ${at(r.at_ms)}: ` +
    `the two nodes' clocks cannot order records less than ${duration(CROSS_NODE_ORDER_MS)} apart, so whether it was fenced first cannot be told`
  );
}

/** The larger of the two inversions the query found, if any. */
function inversionOf(r: DualWriterRow): Inversion | undefined {
  const sent: Inversion | undefined =
    r.sent_after_ms === null || r.sent_after_node === null
      ? undefined
      : { gapMs: r.sent_after_ms, what: r.sent_after_event === r.last_event_id ? 'sent' : 'replayed', node: r.sent_after_node, eventId: r.sent_after_event };
  const opened: Inversion | undefined = r.opened_after_ms === null ? undefined : { gapMs: r.opened_after_ms, what: 'opened', node: r.old_node!, eventId: null };
  if (sent === undefined || (opened !== undefined && opened.gapMs >= sent.gapMs)) return opened;
  return sent;
}

/** "it took over g1 600 ms before mcp-a logged opening it", in the takeover's own terms. */
function inversionWords(r: DualWriterRow, skew: Inversion): string {
  const before = `${skew.gapMs} ms before ${skew.node} logged`;
  if (skew.what === 'opened') return `it took over ${r.old_stream} ${before} opening it`;
  if (skew.what === 'sent') return `it resumed from event ${skew.eventId} ${before} sending it`;
  return `it replayed event ${skew.eventId} ${before} sending it`;
}

/** A finding that stands although its lines are in an impossible order says so: skew it does not outlast by much. */
function impossibleOrderNote(r: DualWriterRow): string {
  const skew = inversionOf(r);
  if (skew === undefined) return '';
  return ` (its lines are in an impossible order: ${inversionWords(r, skew)}, so ${behindBy(r, skew)})`;
}

/** "the clock of mcp-b runs at least 2000 ms behind mcp-a's": the side the closing "Clock skew" note takes. */
function behindBy(r: DualWriterRow, skew: Inversion): string {
  return `the clock of ${r.up_node ?? 'the node that took over'} runs at least ${skew.gapMs} ms behind ${skew.node}'s (clock skew)`;
}

export default defineRule({
  id: RULE,
  severity: 'error',
  family: 'writers-and-requests',
  summary: 'An upgrade superseded a stream that was neither closed nor fenced: two writers.',
  seeds: ['001'],
  explanation: {
    meaning:
      'An accepted upgrade superseded a stream that was neither closed nor fenced at that moment, nor one the server had already written to for replay only (attached: false, its own record that no body was live): two writers for one stream lineage (or, on an attach, for the session\'s standalone stream).',
    whyItBreaks:
      'A resumed stream continues one lineage, and only one writer may hold it. An old stream still registered as live (a half-open socket) keeps receiving server messages that go nowhere, while the new stream never sees them.',
    shouldHave:
      'Fence the prior stream (retire its writer) before attaching the new one; when fencing cannot be confirmed within the grace period, reject the reconnect rather than race two writers.',
  },
  // It rests on a line the log does not show (a close or fence of the old stream before the takeover): one timed
  // before the takeover may still arrive, from a node whose shipper lags or a logger that flushes late.
  live: { reads: [], settles: 'end-of-log' },
  detect: (ctx) => dualWriter(ctx.db, ctx.opts, ctx.handOver),
});
