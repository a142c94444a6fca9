import type { Severity } from '../model/severity.js';
import type { Db } from '../store/db.js';
import type { DetectOptions, DetectorOutput, RawFinding } from './types.js';

// What one rule is, in one module named by its id (src/detect/rules/<id>.ts).
// Metadata, the explanation, the SARIF descriptor, the `rules` command, the
// docs check and live mode all read it from there; its SQL, if any, is
// queries/rules/<id>.sql, its tests test/rules/<id>.test.ts, its doc the
// section of docs/rules.md with its id (test/docs checks it against this).

export type RuleFamily =
  | 'replay-integrity'
  | 'session-continuity'
  | 'stream-vs-session'
  | 'writers-and-requests'
  | 'http-edge'
  | 'protocol-revisions'
  | 'engine';

/** What each rule means for an on-call engineer (`explain`, SARIF, docs/rules.md). */
export interface RuleExplanation {
  /** What the finding says happened, in plain words. */
  meaning: string;
  /** Why it breaks the boundary: an event id is a position within one stream, a session id an identity across streams. */
  whyItBreaks: string;
  /** What a correct server does instead. */
  shouldHave: string;
  /**
   * The texts that fit one finding where the general ones above do not: its message names a revision
   * (replay/revision-named.ts) that lacks what they advise (priming, resumption, sessions). `explain`
   * reads it; docs/rules.md, SARIF and the HTML report, which speak of the rule, keep the general texts.
   */
  fitted?: (message: string) => Partial<Pick<RuleExplanation, 'whyItBreaks' | 'shouldHave'>> | undefined;
}

/**
 * The other records live mode copies beside the sessions it re-judges, for a
 * rule that looks beyond one session (live/context-needs.ts implements each once).
 *   event-id-owners      the first and last other session that emitted an event id a reconnect names
 *   same-tool-calls      sessions that ran the same tool and arguments within the duplicate-call window,
 *                        and the 404s and session creations for their principals in that span
 *   sessions-on-conn     sessions with a stream on the connection of a reconnect that logged no principal
 *   sessionless-records  the records without a session that are new since the last run
 *   log-end              the record that ends the log so far
 */
export type ContextNeed = 'event-id-owners' | 'same-tool-calls' | 'sessions-on-conn' | 'sessionless-records' | 'log-end';

/**
 * The sessions live mode judges again, beside those a batch touched, for a rule whose verdict on a
 * session other sessions' later lines can change (live/dependents.ts implements each once).
 *   retries-by-principal the sessions that executed, within the duplicate-call window around a batch's
 *                        lines, a tool call made before for a principal the batch's sessions name: whether
 *                        it is a retry hangs on what happened between the two (a 404, an end, the client
 *                        leaving a session), which another node's file or a later line may show
 *   event-id-senders     the sessions whose reconnects named an event id no emission of their own places,
 *                        once a batch shows another session sending it before the reconnect (or up to
 *                        the clock-skew allowance after): who sent it is read from the other sessions
 */
export type Rejudge = 'retries-by-principal' | 'event-id-senders';

/**
 * When a live finding is final.
 *   at-once      as soon as it is found: later lines cannot undo it (save lines older than it that a
 *                followed file has yet to show: live/finding-book.ts holds it until every file has)
 *   end-of-log   later lines can withdraw it (an answer may still come, or a line timed before it that
 *                arrives late): announced once it has stood for the settle period, or when the run ends
 */
export type Settling = 'at-once' | 'end-of-log';

export interface RuleLive {
  reads: readonly ContextNeed[];
  settles: Settling;
  /**
   * For a rule whose "not knowable" the log merely going on can settle (the log ends inside a
   * grace period after a moment): how long after a session's last record live mode judges it again.
   */
  recheckAfterMs?: (opts: DetectOptions) => number;
  /** Sessions to judge again when a batch touches others (none by default). */
  rejudges?: readonly Rejudge[];
}

/** A fact several rules judge from (reconnects, served upgrades): loaded from the store once per run. */
export type SharedFact<T = unknown> = (db: Db, opts: DetectOptions) => T;

/** A run's view of the store, with facts several rules share computed once. */
export interface RuleContext {
  db: Db;
  opts: DetectOptions;
  /** `fact(db, opts)`, computed once per run however many rules ask; only a fact the rule declares in `facts`. */
  shared<T>(fact: SharedFact<T>): T;
  /**
   * Hands findings over before the rule returns, for a rule whose findings grow with the log (one per
   * upgrade of a bad server): the run sets them down at once and holds a batch, not all of them. They
   * come before the findings the rule returns, in the order handed over.
   */
  handOver(findings: RawFinding[]): void;
}

export interface RuleModule<Id extends string = string> {
  id: Id;
  severity: Severity;
  family: RuleFamily;
  /** One line: what the rule catches, for --help, SARIF and JUnit. */
  summary: string;
  /** The incident write-ups (seeds) the rule comes from. */
  seeds: readonly string[];
  explanation: RuleExplanation;
  live: RuleLive;
  /**
   * The shared facts detect() asks ctx.shared for. The run lets a fact go after the
   * last rule that declares it: the facts grow with the log's reconnects, and
   * holding them through the rules after would hold them through the whole run.
   */
  facts?: readonly SharedFact[];
  /** Findings of this rule only (each `rule` is this id), and what it could not judge. */
  detect(ctx: RuleContext): DetectorOutput;
}

/** Keeps the literal id, so the index can derive the RuleId union from its modules. */
export function defineRule<const Id extends string>(rule: RuleModule<Id>): RuleModule<Id> {
  return rule;
}

/** The family names docs/rules.md and the reports use. */
export const FAMILY_TITLES: Record<RuleFamily, string> = {
  'replay-integrity': 'Replay integrity',
  'session-continuity': 'Session continuity',
  'stream-vs-session': 'Stream versus session resumption',
  'writers-and-requests': 'Writers and in-flight requests',
  'http-edge': 'Symptoms at the HTTP edge',
  'protocol-revisions': 'Protocol revisions',
  engine: 'Cross-check with the embedded engine',
};
