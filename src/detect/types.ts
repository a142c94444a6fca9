import type { Finding, NotKnowable } from '../model/finding.js';
import type { RuleId } from '../model/rules.js';
import type { Db } from '../store/db.js';

/** Thresholds and retention the detectors judge with (what-if changes these). */
export interface DetectOptions {
  stormCount: number;
  stormWindowMs: number;
  duplicateCallWindowMs: number;
  fenceGraceMs: number;
  /**
   * 'as-logged': a position is retained unless the log shows it trimmed or the
   * session log evicted. A number override re-judges retention by age/count.
   */
  retention: 'as-logged' | { maxAgeMs?: number; maxEvents?: number };
  /**
   * The nodes share one session store (say so when the deployment does): a session created
   * on one node is known to all. Without it, a node knows a session it created, or one the log
   * shows it continuing from another node's events.
   */
  sharedSessionStore: boolean;
}

export const DEFAULT_DETECT_OPTIONS: DetectOptions = {
  stormCount: 5,
  stormWindowMs: 10_000,
  duplicateCallWindowMs: 60_000,
  fenceGraceMs: 5_000,
  retention: 'as-logged',
  sharedSessionStore: false,
};

/**
 * A finding before its evidence is resolved to file:line: detectors name
 * record ids (records.id), in the order a reader should see them.
 */
export interface RawFinding {
  rule: RuleId;
  session: string | null;
  atMs: number;
  message: string;
  evidenceIds: number[];
}

export interface DetectorOutput {
  findings: RawFinding[];
  notKnowable: NotKnowable[];
}

export interface Detector {
  /** The rules this detector judges (its family). */
  rules: readonly RuleId[];
  run(db: Db, opts: DetectOptions): DetectorOutput;
}

export type { Finding, NotKnowable };
