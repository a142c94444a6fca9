import type { DecisionClass, ProtocolRevision, Retention } from '../engine/index.js';
import type { Finding } from '../model/finding.js';
import type { LineRef } from '../model/record.js';
import type { DetectOptions } from '../detect/types.js';
import type { Unresumable } from '../replay/re-decide.js';

/** What the what-if world does differently; anything absent stays as logged (or as configured). */
export interface PolicyChange {
  retention?: { maxAgeMs?: number; maxEvents?: number };
  fenceGraceMs?: number;
  stormCount?: number;
  stormWindowMs?: number;
  duplicateCallWindowMs?: number;
  unresumable?: 'reject' | 'reset';
  /** Had the clients spoken this revision: every reconnect decided by its rules, and which calls a broken stream loses. */
  protocolVersion?: ProtocolRevision;
}

export interface WhatIfOptions {
  /** The world as logged: configured thresholds (default: the analyzer's); retention is always as logged. */
  baseline?: Partial<Omit<DetectOptions, 'retention'>>;
  disabled?: readonly string[];
  change: PolicyChange;
  /**
   * The database is a --db file a user keeps: the world as logged is its kept report where one matches
   * (detect/report-cache.ts), as analyze --db keeps it, and only the changed world is judged anew.
   */
  cached?: boolean;
}

/** The what-if world's policy in full. */
export interface WhatIfPolicy {
  retention: Retention;
  fenceGraceMs: number;
  unresumable: Unresumable;
  stormCount: number;
  stormWindowMs: number;
  duplicateCallWindowMs: number;
  /** Present when the change names a revision; otherwise each session is decided by its logged one. */
  protocolVersion?: ProtocolRevision;
}

export interface DecisionSummary {
  decision: DecisionClass;
  status: number;
  reason: string;
  checks: string[];
}

/** One fault in both worlds, reported at another time under the change. */
export interface MovedFinding {
  rule: string;
  session: string | null;
  before_at: string;
  after_at: string;
}

/** A logged reconnect the engine decides one way as logged and another way under the change. */
export interface Flip {
  session: string | null;
  at: string;
  last_event_id: string | null;
  /** What the server itself answered. */
  logged: { decision: string | null; status: number | null };
  before: DecisionSummary;
  after: DecisionSummary;
  why: string;
  /** The lines behind the decision that rejects, then the upgrade. */
  evidence: LineRef[];
}

export interface WhatIfReport {
  version: 1;
  policy: WhatIfPolicy;
  /** The answers an incident review asks for, one sentence each. */
  headline: string[];
  before: { by_rule: Record<string, number> };
  after: { by_rule: Record<string, number> };
  disappeared: Finding[];
  appeared: Finding[];
  /** Present when some are: faults in both worlds that a what-if threshold reports at another time (a 404-storm reaching a lower count sooner). */
  moved?: MovedFinding[];
  flips: Flip[];
  /** Present when the change names a protocol revision (`--protocol`). */
  calls?: CallsWhatIf;
  /** Lines of the inputs that could not be read as records (log-format.md: counted in every report). */
  rejected_lines: number;
  /** Present when an input was unusable (the run exits 2): both worlds are judged without it. */
  unusable_inputs?: { name: string; reason: string }[];
}

/**
 * What became of a client request's response: `delivered` on the body the request opened,
 * `rescued` by a resumption (or attach) after that body broke, or `lost`.
 */
export type CallOutcome = 'delivered' | 'rescued' | 'lost';

/** A client request whose response stream broke before its response. */
export interface CallChange {
  rpc_id: string;
  method: string | null;
  tool: string | null;
  /** When the call was logged (or, without a call record, its response). */
  at: string;
  /** As logged, under the session's own revision. */
  before: CallOutcome;
  /** Under the revision the change names. */
  after: CallOutcome;
  /** The client re-issues it under a new id (the revision resumes no stream). */
  reissued: boolean;
  /** ... and the server runs it again: a `tools/call` it had executed, unless the tool is idempotent. */
  run_twice: boolean;
  /** The accepted resumption (or attach) that brought the response as logged; null when none did. */
  rescued_by: { decision: string; last_event_id: string | null; at: string } | null;
  why: string;
  /** The call, what broke its stream, its response, and the upgrade that brought it as logged, in log order. */
  evidence: LineRef[];
}

export interface SessionCalls {
  /** null: the requests without a session (2026-07-28), together. */
  session: string | null;
  /** The session's logged protocol version (null: none logged, decided as 2025-11-25). */
  protocol_version: string | null;
  /** Calls lost under the change. */
  lost: number;
  reissued: number;
  run_twice: number;
  /** Of the lost ones, those a resumption or attach brought to the client as logged. */
  rescued: number;
  calls: CallChange[];
}

export interface CallsWhatIf {
  protocol_version: ProtocolRevision;
  /** Client requests whose response the log shows as an SSE event: the ones that can be judged. */
  judged: number;
  /** Of those, the ones whose response came on the body its request opened. */
  delivered: number;
  /** Client requests with no response event (a plain JSON answer, or none): not judged. */
  unjudged: number;
  /** Sessions with at least one call whose response stream broke, in log order. */
  sessions: SessionCalls[];
}
