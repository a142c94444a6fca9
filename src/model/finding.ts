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
  sessions: number;
  /** Findings per rule id, for the rules that found any. */
  by_rule: Record<string, number>;
  nodes: Record<string, NodeSummary>;
  /** Sessions per logged protocol version; `unknown` counts those without one. */
  protocol_versions: Record<string, number>;
  /** Internal (not in the JSON report): some record without a session logged a version. */
  sessionless_versions?: boolean;
}

/** The `--format json` report: the public shape (README, "The rules"; docs/rules.md). */
export interface Report {
  version: 1;
  findings: Finding[];
  not_knowable: NotKnowable[];
  summary: Summary;
}
