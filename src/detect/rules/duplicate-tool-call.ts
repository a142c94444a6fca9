import { defineRule, type RuleContext } from '../rule.js';
import { FindingBatches } from '../finding-batches.js';
import type { NotKnowable } from '../../model/finding.js';
import { at, duration, plural } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { eachQueryRow, evidenceIds, queryRows } from '../query-rows.js';
import type { DetectOptions, DetectorOutput } from '../types.js';
import { isStatelessEra } from '../../model/record.js';
import { atProtocol, revisionNamed } from '../../replay/revision-named.js';

interface DuplicateCallRow {
  session: string | null;
  at_ms: number;
  how: 'same-rpc' | '404' | 'ended' | 'replaced' | 'new-session' | 'stream-broke';
  tool: string | null;
  rpc_id: string;
  principal: string | null;
  proxy_seen: number;
  first_session: string | null;
  first_rpc_id: string;
  first_ms: number;
  between_kind: string | null;
  between_status: number | null;
  between_session: string | null;
  between_ms: number | null;
  between_stream: string | null;
  first_node: string | null;
  node: string | null;
  /** The later call's protocol version, else its session's. */
  version: string | null;
  /** The proxy's one access line of the request both executions served (a proxy retry), where the log shows one. */
  proxy_id: number | null;
  proxy_node: string | null;
  proxy_ms: number | null;
  proxy_duration_ms: number | null;
  evidence: string;
}

function inBetween(r: DuplicateCallRow): string {
  const moment = r.between_ms === null ? '' : ` at ${at(r.between_ms)}`;
  switch (r.how) {
    case '404':
      return `a POST of ${r.principal} got 404${moment}`;
    case 'ended':
      return `${r.first_session} ended${moment}`;
    case 'replaced':
      return `${r.first_session} was replaced by a fresh session${moment}`;
    case 'new-session':
      return `a new session${r.between_session ? ` ${r.between_session}` : ''} was created for ${r.principal}${moment}`;
    case 'stream-broke':
      return `its response stream ${r.between_stream} closed${moment} before the response was delivered`;
    case 'same-rpc':
      return '';
  }
}

/**
 * The proxy logged the client's request once, and two nodes executed it while it lasted: the proxy retried it
 * upstream (a reset or a time-out on the first upstream), not the client.
 */
function proxyRetried(tool: string, r: DuplicateCallRow): string {
  const on = (node: string | null) => (node !== null && r.first_node !== r.node ? ` on ${node}` : '');
  const lasting = r.proxy_duration_ms !== null ? `, lasting ${duration(r.proxy_duration_ms)}` : '';
  return (
    `${tool} with rpc id ${r.rpc_id} was executed twice in ${r.session}: at ${at(r.first_ms)}${on(r.first_node)} and again at ${at(r.at_ms)}${on(r.node)}; ` +
    `${PROXY_ONCE} (${r.proxy_node ?? 'the proxy'} at ${at(r.proxy_ms!)}${lasting}), so the proxy sent it upstream again, not the client`
  );
}

/** What a proxy-retry message says; `fitted` recognises it. */
const PROXY_ONCE = "the proxy logged the client's request once";

/** At 2026-07-28 a client re-issues a call whose stream broke under a new id: said where the later call speaks it. */
function reissued(r: DuplicateCallRow): string {
  if (r.how !== 'stream-broke' || !isStatelessEra(r.version ?? undefined)) return '';
  return ` (${atProtocol(r.version!)} a client whose response stream broke re-issues the call under a new id)`;
}

/** Since 2026-07-28 a call has no session. */
const inSession = (session: string | null): string => (session !== null ? `in ${session}` : 'without a session');

function duplicateToolCall(db: Db, opts: DetectOptions, handOver: RuleContext['handOver']): DetectorOutput {
  const findings = new FindingBatches(handOver);
  const notKnowable: NotKnowable[] = [];
  // the first executions the findings name (evidence leads with it): an unlinked one that another clause judged is no question
  const judged = new Set<number>();
  for (const r of eachQueryRow<DuplicateCallRow>(db, 'rules/duplicate-tool-call', opts)) {
    const tool = r.tool ? `tools/call ${r.tool}` : 'tools/call';
    if (r.proxy_seen) {
      notKnowable.push({
        rule: 'duplicate-tool-call',
        session: r.session,
        reason: `proxy log only: ${tool} (rpc id ${r.rpc_id}) got a 2xx at ${at(r.first_ms)} and again at ${at(r.at_ms)}, but whether the server executed it twice or answered the retry from its deduplication (executed: false) could not be seen`,
      });
      continue;
    }
    const message =
      r.how === 'same-rpc'
        ? r.proxy_id !== null
          ? proxyRetried(tool, r)
          : `${tool} with rpc id ${r.rpc_id} was executed twice in ${r.session}: at ${at(r.first_ms)} and again at ${at(r.at_ms)}`
        : `${tool} with the same arguments was executed twice for ${r.principal} within ${Math.round((r.at_ms - r.first_ms) / 1000)} s: ` +
          `${inSession(r.first_session)} (rpc id ${r.first_rpc_id}) at ${at(r.first_ms)}, and again ${inSession(r.session)} (rpc id ${r.rpc_id}) after ${inBetween(r)}: ` +
          `a retry re-executed it${reissued(r)}`;
    const evidence = evidenceIds(r.evidence);
    judged.add(evidence[0]!);
    findings.push({ rule: 'duplicate-tool-call', session: r.session, atMs: r.at_ms, message, evidenceIds: evidence });
  }
  return {
    findings: findings.rest(),
    notKnowable: [...notKnowable, ...proxyRetriedCalls(db, opts), ...unattributedRetries(db, opts), ...unlinkedStatelessCalls(db, opts, judged)],
  };
}

/**
 * A proxy that retried a tools/call upstream after a 5xx (Envoy on an upstream reset: the node died mid-call) logs
 * each attempt; the servers log fewer executions than attempts, the failed one's node having logged nothing of it.
 * Whether it ran the tool before failing is not in the server logs: for a payment, the one thing to hear about.
 */
function proxyRetriedCalls(db: Db, opts: DetectOptions): NotKnowable[] {
  const rows = queryRows<{ session: string; rpc_id: string; ts_ms: number; status: number; duration_ms: number | null; attempts: number; tries: string; executions: number; tool: string | null }>(
    db,
    'facts/proxy-retried-calls',
    opts,
  );
  return rows.map((r) => {
    const tries = (JSON.parse(r.tries) as [number, number][]).map(([ts, status]) => `${status} at ${at(ts)}`).join(', then ');
    const tool = r.tool === null ? 'tools/call' : `tools/call ${r.tool}`;
    const after = r.duration_ms === null ? '' : ` after ${duration(r.duration_ms)}`;
    return {
      rule: 'duplicate-tool-call',
      session: r.session,
      reason:
        `${tool} (rpc id ${r.rpc_id}) was sent upstream ${r.attempts} times by the proxy (${tries}), and the servers logged ${plural(r.executions, 'execution')} of it: ` +
        `the attempt that failed with ${r.status}${after} left no server record, so whether it ran the tool before failing (the call then executed twice) is not in the server logs`,
    };
  });
}

/**
 * A call without a session (2026-07-28) that names no stream, req or conn cannot be tied to the POST stream its
 * response went on, so whether that stream broke first, making the principal's identical later call a retry,
 * cannot be told. Said once, for the session-less requests, with the first such call.
 */
function unlinkedStatelessCalls(db: Db, opts: DetectOptions, judged: ReadonlySet<number>): NotKnowable[] {
  const rows = queryRows<{ id: number; ts_ms: number; tool: string; principal: string; next_ms: number }>(db, 'facts/unlinked-stateless-calls', opts)
    .filter((r) => !judged.has(r.id));
  const first = rows[0];
  if (first === undefined) return [];
  const more = rows.length > 1 ? ` (and ${plural(rows.length - 1, 'other')})` : '';
  return [
    {
      rule: 'duplicate-tool-call',
      session: null,
      reason: `tools/call ${first.tool} without a session at ${at(first.ts_ms)}${more} names no stream, req or conn and no response to it was logged, and ${first.principal} executed it again ${duration(first.next_ms - first.ts_ms)} later: whether its response stream broke first (a retry) cannot be told`,
    },
  ];
}

/**
 * A retry from another session is recognised by its principal: executions of
 * the same tool and arguments within the window whose principal is unknown
 * cannot be attributed to one client. Each such pair is named by its later
 * execution's session.
 */
function unattributedRetries(db: Db, opts: DetectOptions): NotKnowable[] {
  const rows = eachQueryRow<{ tool: string; args_hash: string; session: string; ts_ms: number; unattributed: number }>(db, 'facts/tool-executions-by-arguments', opts);
  const sessions = new Set<string>();
  // One pass per tool and arguments in log order, keeping the latest earlier execution from another
  // session, of any and of an unattributed one (pairing every two executions of one tool and arguments
  // cost a log that calls one tool alike in every session its length squared).
  let group: string | undefined;
  let any = new LatestElsewhere();
  let unattributed = new LatestElsewhere();
  for (const { tool, args_hash: argsHash, session, ts_ms: ts, unattributed: unknown } of rows) {
    const key = `${tool}\0${argsHash}`;
    if (key !== group) {
      group = key;
      any = new LatestElsewhere();
      unattributed = new LatestElsewhere();
    }
    const withinWindow = (earlier: number | null): boolean => earlier !== null && ts - earlier <= opts.duplicateCallWindowMs;
    if ((unknown === 1 && withinWindow(any.before(session))) || withinWindow(unattributed.before(session))) sessions.add(session);
    any.add(session, ts);
    if (unknown === 1) unattributed.add(session, ts);
  }
  return [...sessions].map((session) => ({
    rule: 'duplicate-tool-call',
    session,
    reason: 'no principal is logged for a tools/call that another session executed with the same arguments: whether one client retried it is not known',
  }));
}

/** Over executions in time order: when the latest one from a session other than a given one happened. */
class LatestElsewhere {
  private session: string | null = null;
  private ts: number | null = null;
  /** The latest execution before the current run of executions of one session. */
  private beforeRun: number | null = null;

  before(session: string): number | null {
    return this.session === null ? null : this.session !== session ? this.ts : this.beforeRun;
  }

  add(session: string, ts: number): void {
    if (this.session !== session) {
      this.beforeRun = this.ts;
      this.session = session;
    }
    this.ts = ts;
  }
}

export default defineRule({
  id: 'duplicate-tool-call',
  severity: 'error',
  family: 'http-edge',
  summary: 'One tools/call was executed twice for one client.',
  seeds: ['000', '004'],
  explanation: {
    meaning:
      'One tools/call was executed twice for one client: the same JSON-RPC id twice in one session, or the same tool and arguments twice by one principal within 60 seconds with, in between, a 404, the end or replacement of the first session (the later call then made in a session begun since: a session already running is another client\'s), or the first execution\'s response stream closing before its response was delivered (the client re-issued it, as a 2026-07-28 client must). A client that had the first answer on a live stream before calling again made a new call, not a retry.',
    whyItBreaks:
      'A client that lost its session or got a 404 sends the call again, and a server that takes it for a new call repeats its side effect (a write, a payment). This is where a blurred boundary between stream and session costs the most.',
    shouldHave:
      'Deduplicate tool calls by JSON-RPC id within a session and log a recognised retry with executed: false; and avoid the 404s and forks that make clients retry in the first place. At 2026-07-28 and later, where a re-issued call has no session and a new id, stop the work when its response stream closes and make tools with side effects idempotent.',
    fitted: (message) => {
      if (message.includes(PROXY_ONCE)) {
        return {
          whyItBreaks:
            'The client sent the call once. The proxy retried the POST on another upstream after the first failed (a reset, a time-out), and that node executed it again: a tools/call is not idempotent, and nodes that share no deduplication cannot recognise the retry.',
          shouldHave:
            'Do not let the proxy retry a POST to the MCP endpoint on another upstream (nginx: proxy_next_upstream without non_idempotent, its default; Envoy: no retry_on for these routes), or let the nodes share deduplication by session and JSON-RPC id, so that the second answers from the first result and logs executed: false.',
        };
      }
      if (revisionNamed(message)?.rules.sessions !== false) return undefined;
      return {
        whyItBreaks:
          'At 2026-07-28 and later a call has no session and nothing resumes its stream: a client whose response stream broke re-issues the call under a new JSON-RPC id. The close of the first stream was that call\'s cancellation; a server that went on with it and then ran the re-issue repeats its side effect (a write, a payment).',
        shouldHave:
          'Treat the close of a call\'s response stream as its cancellation and stop the work (2026-07-28 transports, Cancellation), and make tools with side effects idempotent: take an idempotency key in the arguments (or recognise the same tool and arguments from the same principal) and answer the re-issue from the first result, logged executed: false. Deduplicating by JSON-RPC id within a session cannot work there: the re-issue has a new id and no session.',
      };
    },
  },
  live: { reads: ['same-tool-calls'], settles: 'at-once', rejudges: ['retries-by-principal'] },
  detect: (ctx) => duplicateToolCall(ctx.db, ctx.opts, ctx.handOver),
});
