// The analysis thresholds, with their defaults: what the detectors, the replay
// and the engine policy built from them share.

/** Thresholds and retention the detectors judge with (what-if changes these). */
export interface DetectOptions {
  stormCount: number;
  stormWindowMs: number;
  duplicateCallWindowMs: number;
  fenceGraceMs: number;
  /** stranded-response: a log that ends this soon after a response was stored for replay cannot judge it yet. */
  strandingWindowMs: number;
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
  strandingWindowMs: 60_000,
  retention: 'as-logged',
  sharedSessionStore: false,
};

