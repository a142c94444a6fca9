import type { NotKnowable } from '../../model/finding.js';
import { FindingBatches } from '../finding-batches.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import { defineRule } from '../rule.js';
import { at, duration } from '../../model/phrasing.js';

// rules.md "Writers and in-flight requests": a response stored for replay that
// no resumption ever asked for. The 0.1.16 conformance scenario server-sse-polling
// closes a POST stream before any event id: the result is stored, and no
// Last-Event-ID can name a position before it.

interface Row {
  session: string | null;
  at_ms: number;
  stream: string;
  event_id: string;
  rpc_id: string | null;
  attached: number;
  after_close: number;
  closed_ts: number | null;
  close_reason: string | null;
  how: 'stateless' | 'no-position' | 'session-ended' | 'never-resumed' | 'pending';
  end_ts: number | null;
  log_end_ms: number;
  window_ms: number;
  evidence: string;
}

function whatWasWritten(r: Row): string {
  const which = `the response${r.rpc_id !== null ? ` to request ${r.rpc_id}` : ''} (event ${r.event_id} on ${r.stream})`;
  const closed = r.closed_ts !== null ? `${r.stream} closed at ${at(r.closed_ts)}${r.close_reason ? ` (${r.close_reason})` : ''}` : '';
  if (r.after_close && closed) return `${which} was written after ${closed}, for replay only`;
  return `${which} was stored for replay only (attached: false)${closed && r.how === 'no-position' ? ` and ${closed}` : ''}`;
}

function fate(r: Row): string {
  switch (r.how) {
    case 'stateless':
      return 'it has no session, and without sessions (2026-07-28) no Last-Event-ID can ask for it: it was never delivered';
    case 'no-position':
      return `${r.stream} had carried no event id the client could resume from (no priming event), so no client can ask for it: it is stranded at once`;
    case 'session-ended':
      return `${r.session} ended at ${at(r.end_ts!)} with no resumption of that stream from before it: it was never delivered`;
    case 'never-resumed':
      return `no resumption of that stream from before it followed in the ${duration(r.log_end_ms - r.at_ms)} the log goes on: it was never delivered`;
    case 'pending':
      return '';
  }
}

export default defineRule({
  id: 'stranded-response',
  severity: 'error',
  family: 'writers-and-requests',
  summary: "A call's response was written only for replay and no resumption ever delivered it.",
  seeds: [],
  explanation: {
    meaning:
      "The response to a client's request was written only for replay (attached: false, or after its stream had closed), and no accepted resumption of that stream from a position before it followed while the session lived; where the stream had carried no event id before it closed (no priming event), no client could ever ask for it.",
    whyItBreaks:
      'A stored response reaches the client only through Last-Event-ID, a position within that one stream. A client that holds no position of the stream, or never comes back for it, never gets the result: the call ran, and its answer is lost in a buffer.',
    shouldHave:
      'Send an event id first (a priming event) on every stream that may close before its response, and close it with a poll retry only after that; keep the stored response until a resumption of that stream replays it. Where the client holds no position, deliver the response on a live stream or fail the call explicitly.',
  },
  live: { reads: ['log-end'], settles: 'end-of-log', recheckAfterMs: (opts) => opts.strandingWindowMs },
  detect(ctx) {
    const findings = new FindingBatches(ctx.handOver);
    const notKnowable: NotKnowable[] = [];
    for (const r of eachQueryRow<Row>(ctx.db, 'rules/stranded-response', ctx.opts)) {
      if (r.how === 'pending') {
        notKnowable.push({
          rule: 'stranded-response',
          session: r.session,
          reason:
            `the log ends ${duration(r.log_end_ms - r.at_ms)} after the response${r.rpc_id !== null ? ` to request ${r.rpc_id}` : ''} was stored for replay on ${r.stream} ` +
            `at ${at(r.at_ms)}, within the ${duration(r.window_ms)} stranding window: a resumption may still deliver it`,
        });
        continue;
      }
      findings.push({
        rule: 'stranded-response',
        session: r.session,
        atMs: r.at_ms,
        message: `${whatWasWritten(r)}; ${fate(r)}`,
        evidenceIds: evidenceIds(r.evidence),
      });
    }
    return { findings: findings.rest(), notKnowable };
  },
});
