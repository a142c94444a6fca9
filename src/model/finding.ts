import type { LineRef } from './record.js';
import type { Severity } from './severity.js';

/** One violation, with the log lines that prove it (fewest first, in log order). */
export interface Finding {
  /** A rule id of the catalogue (detect/rules/index.ts; docs/rules.md). */
  rule: string;
  severity: Severity;
  /** The session id the request presented; null for event-id-without-session. */
  session: string | null;
  /** RFC 3339 time of the record that completes the violation. */
  at: string;
  message: string;
  evidence: LineRef[];
}

/** A rule that could not be judged for a session, and why (never a guess). */
export interface NotKnowable {
  rule: string;
  session: string | null;
  reason: string;
}

export interface NodeSummary {
  records: number;
  /** Estimated clock skew in ms, where causality shows one. */
  skew_ms?: number;
}

export interface Summary {
  records: number;
  rejected_lines: number;
  ignored_lines: number;
  /** Internal (not in the JSON report, whose shape rules.md fixes): of the ignored lines, those that repeat an earlier line. */
  repeated_lines?: number;
  sessions: number;
  /** Findings per rule id, for the rules that found any. */
  by_rule: Record<string, number>;
  nodes: Record<string, NodeSummary>;
  /** Sessions per logged protocol version; `unknown` counts those without one. */
  protocol_versions: Record<string, number>;
  /** Internal (not in the JSON report): some record logged a version (a session's, or one that names none). */
  versions_logged?: boolean;
  /**
   * Internal (not in the JSON report; `resumescope query lost-sessions` lists the sessions): per node, the
   * sessions it had created and never ended that got 404, from it or, once it had fallen silent, from another
   * node, grouped as one loss where their first 404s follow each other closely (detect/node-losses.ts).
   * Absent where there is none.
   */
  lost_sessions?: NodeLoss[];
}

/** Sessions a node lost without a log line saying so: a restart, a crash or evictions the log does not show. */
export interface NodeLoss {
  /**
   * The node that created the sessions (null: the log names no node); with a shared session store, the node
   * that answered 404 for them.
   */
  node: string | null;
  sessions: number;
  /** The 404s answered for them. */
  not_found: number;
  /** The first and the last of the sessions' first 404s. */
  from_ms: number;
  until_ms: number;
  /** The latest record the node logged of any of them before the first 404: one event that lost them all came after it. */
  last_seen_ms?: number;
  /**
   * With a shared session store, where another node than `node` created the sessions or logged that latest record:
   * the nodes that created them (null: a record that names none), and the node of that record.
   */
  created_on?: (string | null)[];
  last_seen_node?: string | null;
  /**
   * Where other nodes answered the 404s (the node had fallen silent: without a shared session store, only it
   * could know its sessions): its last record of all, and the nodes that answered the first 404s, itself too
   * where it did (null: a record that names no node).
   */
  silent_after_ms?: number;
  answered_by?: (string | null)[];
  /** Those lines in log order: that record, the node's last (where other nodes answered), the first 404. */
  evidence: LineRef[];
  lost: LostSession[];
}

/** One session of a loss, with the time after which its findings follow from the loss (its last record on the node). */
export interface LostSession {
  session: string;
  after_ms: number;
}

/**
 * Findings too many to hold, kept outside the heap and read in timeline order one at a time
 * (detect/finding-table.ts): what a report's filters, gate and renderers need of them.
 */
export interface OrderedFindings extends Iterable<Finding> {
  readonly length: number;
  /** Findings per rule id, for the rules that have some. */
  countByRule(): ReadonlyMap<string, number>;
  /** One rule's findings, in timeline order. */
  ofRule(rule: string): Iterable<Finding>;
  /** Findings per rule id on these sessions, each after its own time (a node loss's sessions: NodeLoss.lost). */
  countByRuleOn(sessions: readonly LostSession[]): ReadonlyMap<string, number>;
  filter(keep: (f: Finding) => boolean): OrderedFindings;
}

/** A report's findings: in memory (in any order), or kept outside the heap in timeline order. */
export type FindingList = Finding[] | OrderedFindings;

/** What the rules could not judge, kept outside the heap and read in report order (detect/not-knowable-spool.ts). */
export interface OrderedNotKnowables extends Iterable<NotKnowable> {
  readonly length: number;
  /** One rule's, in report order. */
  ofRule(rule: string): Iterable<NotKnowable>;
  filter(keep: (n: NotKnowable) => boolean): OrderedNotKnowables;
}

/** A report's not-knowables: in memory (in any order), or kept outside the heap in report order. */
export type NotKnowableList = NotKnowable[] | OrderedNotKnowables;

/**
 * The `--format json` report: the public shape (README, "The rules"; docs/rules.md). The library's
 * and the front ends' reports hold their findings and not-knowables in memory; `analyze` keeps both
 * in tables.
 */
export interface Report<F extends FindingList = Finding[]> {
  version: 1;
  findings: F;
  not_knowable: F extends Finding[] ? NotKnowable[] : NotKnowableList;
  summary: Summary;
}
