import type { Severity } from './severity.js';

// The violation catalogue (docs/rules.md). Ids and severities are a
// public interface: reports, baselines and CI gates name them.

export const RULE_IDS = [
  'silent-truncation',
  'phantom-event-id',
  'foreign-event-id',
  'event-id-without-session',
  'event-id-regression',
  'resume-after-end',
  'resume-across-state-change',
  'silent-fork',
  'silent-reset',
  'session-id-reuse',
  'replay-on-attach',
  'pending-not-reemitted',
  'duplicate-reemit',
  'dual-writer',
  'write-to-superseded-stream',
  'answered-request-replayed',
  'stranded-response', // until the rule-module index lands
  'orphaned-request',
  'stale-writer-blocks-reconnect',
  'cross-principal-replay',
  '404-storm',
  'duplicate-tool-call',
  'session-in-stateless-era',
  'replay-in-stateless-era',
  'engine-divergence',
] as const;

export type RuleId = (typeof RULE_IDS)[number];

export type RuleFamily =
  | 'replay-integrity'
  | 'session-continuity'
  | 'stream-vs-session'
  | 'writers-and-requests'
  | 'http-edge'
  | 'protocol-revisions'
  | 'engine';

export interface RuleMeta {
  id: RuleId;
  severity: Severity;
  family: RuleFamily;
  /** One line: what the rule catches, for --help, SARIF and JUnit. */
  summary: string;
  seeds: string[];
}

const r = (id: RuleId, severity: Severity, family: RuleFamily, summary: string, seeds: string[] = []): RuleMeta => ({
  id,
  severity,
  family,
  summary,
  seeds,
});

export const RULES: Record<RuleId, RuleMeta> = Object.fromEntries(
  [
    r('silent-truncation', 'error', 'replay-integrity', 'A resumption was accepted although its replay cannot have been complete.', ['002', '001']),
    r('phantom-event-id', 'error', 'replay-integrity', 'A resumption was accepted for a Last-Event-ID that was never emitted.', ['001', '002']),
    r('foreign-event-id', 'error', 'replay-integrity', 'A resumption replayed from another session, incarnation or stream.', ['000', '004']),
    r('event-id-without-session', 'error', 'replay-integrity', 'A Last-Event-ID without Mcp-Session-Id was accepted.', ['000']),
    r('event-id-regression', 'error', 'replay-integrity', 'An event id was emitted twice in a session, or a replay went backwards: the mark of a fork.', ['004']),
    r('resume-after-end', 'error', 'session-continuity', 'A terminated or evicted session was resumed or attached to.', ['002', '004']),
    r('resume-across-state-change', 'error', 'session-continuity', 'A resumption replayed across a session state change.', ['002']),
    r('silent-fork', 'error', 'session-continuity', 'An unknown or ended session id got a session instead of 404, with no new id and reset signal.', ['004', '002']),
    r('silent-reset', 'error', 'session-continuity', 'A live session with an unresumable Last-Event-ID was served fresh without telling the client.', ['002']),
    r('session-id-reuse', 'warning', 'session-continuity', 'One session id string was created twice.', ['004']),
    r('replay-on-attach', 'error', 'stream-vs-session', 'A session resumption (no Last-Event-ID) replayed past events.', ['000']),
    r('pending-not-reemitted', 'error', 'stream-vs-session', 'An attach left pending server-to-client requests neither re-emitted nor cancelled.', ['000']),
    r('duplicate-reemit', 'warning', 'stream-vs-session', 'A stream resumption re-emitted pending requests the client already had.', ['000']),
    r('dual-writer', 'error', 'writers-and-requests', 'An upgrade superseded a stream that was neither closed nor fenced: two writers.', ['001']),
    r('write-to-superseded-stream', 'error', 'writers-and-requests', 'An event or request was written to a stream after it was superseded.', ['001']),
    r('answered-request-replayed', 'error', 'writers-and-requests', 'A replay window held a server request that was already answered.', ['001']),
    // until the rule-module index lands
    r('stranded-response', 'error', 'writers-and-requests', "A call's response was written only for replay and no resumption ever delivered it."),
    r('orphaned-request', 'error', 'writers-and-requests', 'A server-to-client request was stranded on a dead stream and never answered.', ['000', '001']),
    r('stale-writer-blocks-reconnect', 'error', 'writers-and-requests', 'Reconnects were rejected because an unfenced stale writer stayed registered.', ['001']),
    r('cross-principal-replay', 'critical', 'writers-and-requests', "A session's events were replayed to another principal.", ['001']),
    r('404-storm', 'warning', 'http-edge', 'Many POSTs for one session got 404 in a short window.', ['000']),
    r('duplicate-tool-call', 'error', 'http-edge', 'One tools/call was executed twice for one client.', ['000', '004']),
    r('session-in-stateless-era', 'error', 'protocol-revisions', 'A request at protocol 2026-07-28 or later was answered with a session.'),
    r('replay-in-stateless-era', 'error', 'protocol-revisions', 'A request at protocol 2026-07-28 or later was resumed from Last-Event-ID.'),
    r('engine-divergence', 'info', 'engine', "The embedded engine decides another class than the server logged."),
  ].map((m) => [m.id, m]),
) as Record<RuleId, RuleMeta>;

export function isRuleId(s: string): s is RuleId {
  return (RULE_IDS as readonly string[]).includes(s);
}
