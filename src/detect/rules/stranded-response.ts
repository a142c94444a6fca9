import type { NotKnowable } from '../../model/finding.js';
import { FindingBatches } from '../finding-batches.js';
import { eachQueryRow, evidenceIds } from '../query-rows.js';
import { defineRule } from '../rule.js';
import { at, duration } from '../../model/phrasing.js';
import { REVISION_RULES, revisionOf } from '../../engine/revisions.js';
import { atProtocol, revisionNamed } from '../../replay/revision-named.js';
import { STATELESS_REVISION } from '../../model/record.js';

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
  /** The response's protocol version, else its session's. */
  version: string | null;
  evidence: string;
}

/**
 * What the row's revision lacks that the general message assumes: priming and polling (2025-03-26,
 * 2025-06-18), or resumption itself (2026-07-28 and later); undefined at 2025-11-25 or where none is logged.
 */
function lacking(r: Row): { version: string; lacks: 'priming' | 'resumption' } | undefined {
  // A session-less record is accepted only in the stateless era: one without its own version inherited its
  // stream's when it was read (store/inheriting-line.ts), which the stored record does not keep.
  const version = r.version ?? (r.session === null ? STATELESS_REVISION : undefined);
  const revision = revisionOf(version);
  if (version === undefined || revision === undefined) return undefined;
  const rules = REVISION_RULES[revision];
  if (!rules.resumption) return { version, lacks: 'resumption' };
  return rules.priming ? undefined : { version, lacks: 'priming' };
}

/** Its stream closed before it was written. */
const closedFirst = (r: Row): boolean => r.after_close === 1 || (r.closed_ts !== null && r.closed_ts <= r.at_ms);

function whatWasWritten(r: Row): string {
  const which = `the response${r.rpc_id !== null ? ` to request ${r.rpc_id}` : ''} (event ${r.event_id} on ${r.stream})`;
  const closed = r.closed_ts !== null ? `${r.stream} closed at ${at(r.closed_ts)}${r.close_reason ? ` (${r.close_reason})` : ''}` : '';
  if (r.after_close && closed) return `${which} was written after ${closed}, for replay only`;
  return `${which} was stored for replay only (attached: false)${closed && r.how === 'no-position' ? ` and ${closed}` : ''}`;
}

function fate(r: Row): string {
  const lacks = lacking(r);
  switch (r.how) {
    case 'stateless':
      // 2026-07-28 Cancellation: a closed response stream cancels its request; no resumption exists to deliver it.
      if (lacks?.lacks === 'resumption') {
        return closedFirst(r)
          ? `it has no session, and ${atProtocol(lacks.version)} the close of a response stream cancels its request (Cancellation): the server must send nothing more for it, and no Last-Event-ID can ask for it`
          : `it has no session, and ${atProtocol(lacks.version)} nothing resumes a stream: only its live stream could have carried it`;
      }
      return 'it has no session, and without sessions (2026-07-28) no Last-Event-ID can ask for it: it was never delivered';
    case 'no-position':
      // (where the revision has no priming events at all, revisionNote says so)
      return `${r.stream} had carried no event id the client could resume from${lacks?.lacks === 'priming' ? '' : ' (no priming event)'}, so no client can ask for it: it is stranded at once`;
    case 'session-ended':
      return `${r.session} ended at ${at(r.end_ts!)} with no resumption of that stream from before it: it was never delivered`;
    case 'never-resumed':
      return `no resumption of that stream from before it followed in the ${duration(r.log_end_ms - r.at_ms)} the log goes on: it was never delivered`;
    case 'pending':
      return '';
  }
}

/** Where the session's revision lacks what the general advice relies on, what that revision asks instead. */
function revisionNote(r: Row): string {
  const lacks = lacking(r);
  if (lacks === undefined || r.how === 'stateless') return '';
  if (lacks.lacks === 'resumption') return `; ${atProtocol(lacks.version)} nothing resumes a stream, and the close of a response stream cancels its request`;
  // 2025-03-26 §Sending Messages: "The server SHOULD NOT close the SSE stream before sending a JSON-RPC response per each received JSON-RPC request"
  return closedFirst(r)
    ? `; ${atProtocol(lacks.version)}, which has no priming events or polling, the server SHOULD NOT close the stream before sending the response`
    : ` (${atProtocol(lacks.version)}, which has no priming events or polling)`;
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
      'Send an event id first (a priming event) on every stream that may close before its response, and close it with a poll retry only after that; keep the stored response until a resumption of that stream replays it. Where the client holds no position, deliver the response on a live stream or fail the call explicitly. Before 2025-11-25, which has neither priming nor polling, keep the stream open until the response is sent; at 2026-07-28 and later, which has no resumption, treat a closed response stream as the request\'s cancellation.',
    fitted: (message) => {
      const named = revisionNamed(message);
      if (named === undefined) return undefined;
      if (!named.rules.resumption) {
        return {
          whyItBreaks:
            'At 2026-07-28 and later nothing resumes a stream: Last-Event-ID and SSE event ids are gone (SEP-2575), and the close of a response stream is the request\'s cancellation. A response written after that close, or only for replay, reaches no one; a client that still wants the result re-issues the request, and the tool runs again.',
          shouldHave:
            'Write the response on the request\'s live stream. When that stream closes, treat it as cancellation (2026-07-28 transports, Cancellation: the server MUST NOT send any further messages for the request): stop the work and store nothing for a replay that revision does not have.',
        };
      }
      if (named.rules.priming) return undefined;
      return {
        whyItBreaks:
          'At 2025-03-26 and 2025-06-18 there are no priming events and no polling: a client can resume a stream only from an event id it received on it, and nothing tells it to come back after a close. A response written after its stream closed, or only for replay, reaches the client only if it held an id of that stream and resumed; one that held none never gets the result.',
        shouldHave:
          'Keep the response stream open until the response is sent: the server SHOULD NOT close the SSE stream before sending the JSON-RPC response to each request it received (2025-03-26 transports, §Sending Messages to the Server). Neither 2025-03-26 nor 2025-06-18 has priming events or a poll retry: those came with 2025-11-25. Where the stream broke anyway, keep the response for a resumption from an id the client holds, or fail the call explicitly.',
      };
    },
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
        message: `${whatWasWritten(r)}; ${fate(r)}${revisionNote(r)}`,
        evidenceIds: evidenceIds(r.evidence),
      });
    }
    return { findings: findings.rest(), notKnowable };
  },
});
