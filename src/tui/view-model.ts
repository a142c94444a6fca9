// The view model: the contract between the dashboard and whatever feeds it
// (the SQLite store for `tui`, the file follower for `watch`). Components
// render these shapes and nothing else, so they stay pure and testable.
import type { Finding } from '../model/finding.js';
import type { Severity } from '../model/severity.js';

/** One log line a finding or timeline row points at; `text` is the raw line when the store has it. */
export interface EvidenceLine {
  file: string;
  line: number;
  text?: string;
}

export interface FeedItem {
  /** Stable identity across refreshes: keeps the selection on the same finding while new ones arrive. */
  key: string;
  rule: string;
  severity: Severity;
  session: string | null;
  /** RFC 3339 time of the record that completes the violation. */
  at: string;
  message: string;
  evidence: EvidenceLine[];
}

/** `lost`: one of the sessions a node lost without a log line (the header's loss; detect/node-losses.ts). */
export type SessionState = 'live' | 'ended' | 'forked' | 'lost' | 'unknown';

/** The last upgrade a session saw: what the client presented and what the server decided. */
export interface DecisionTriple {
  lastEventId: string | null;
  decision: string;
  status?: number;
}

export interface SessionRow {
  session: string;
  state: SessionState;
  streams: number;
  lastTriple: DecisionTriple | null;
  replayed: number;
  reemitted: number;
  findings: number;
  /** RFC 3339 time of the session's latest record. */
  lastSeen: string;
}

/** Per-interval counts; every array is aligned with `labels` (one entry per interval). */
export interface Series {
  labels: string[];
  decisions: { resume: number[]; attach: number[]; fresh: number[]; reject: number[] };
  replayed: number[];
  reemitted: number[];
  http404: number[];
}

/**
 * A snapshot: hand the dashboard a new object (with new arrays for what changed) on every
 * change rather than mutating the last one, since derived views are recomputed by identity.
 */
export interface DashboardModel {
  sources: string[];
  mode: 'recorded' | 'live';
  records: number;
  ratePerSec: number;
  rejected: number;
  ignored: number;
  bySeverity: Record<Severity, number>;
  /** Newest first. The dashboard re-sorts defensively, but producers should keep this order. */
  feed: FeedItem[];
  sessions: SessionRow[];
  series: Series;
  /** What happened to a followed file lately (rotated, truncated), newest last; live mode. */
  sourceEvents?: SourceEvent[];
  /** Sessions nodes lost without a log line (detect/node-losses.ts), oldest first. */
  losses?: LossNotice[];
}

/** One node's loss of sessions it created and never ended: the 404s say so, no log line did. */
export interface LossNotice {
  node: string | null;
  sessions: number;
  /** RFC 3339: the first and the last of the sessions' first 404s. */
  from: string;
  until: string;
}

export interface SourceEvent {
  /** Wall-clock time it was noticed (RFC 3339). */
  at: string;
  /** The followed file's name as given (a path). */
  source: string;
  /** What happened to it: "rotated, new file followed". */
  text: string;
}

/** A line the reader could not take as a record: kept, counted, and shown in the rejected view. */
export interface RejectedLine {
  file: string;
  line: number;
  reason: string;
  /** The start of the raw line. */
  text: string;
}

export interface TimelineRow {
  at: string;
  /** The stream this row happened on; null for session-level records (created, state change, end). */
  lane: string | null;
  kind: string;
  text: string;
  ref: { file: string; line: number };
  /** Set when the row is evidence of a finding, so it can be coloured like one. */
  severity?: Severity;
}

export interface SessionLane {
  stream: string;
  via?: string;
  state: string;
}

export interface SessionDetail {
  session: string;
  incarnations: string[];
  lanes: SessionLane[];
  /** In log order. */
  rows: TimelineRow[];
  findings: FeedItem[];
}

/** Turns an engine finding into a feed item; `key` defaults to what identifies a finding in a report. */
export function toFeedItem(finding: Finding, key?: string): FeedItem {
  const first = finding.evidence[0];
  return {
    key: key ?? `${finding.rule}|${finding.session ?? ''}|${finding.at}|${first ? `${first.file}:${first.line}` : ''}`,
    rule: finding.rule,
    severity: finding.severity,
    session: finding.session,
    at: finding.at,
    message: finding.message,
    evidence: finding.evidence.map((e) => ({ file: e.file, line: e.line })),
  };
}
