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
   * orphaned-request: a request still pending when the log ends less than this long after it was stranded is
   * not knowable (the client may be about to come back for it). 0, the default, is rules.md's letter: every one
   * is a finding. A soak test's gate whose log is cut while clients reconnect opts in.
   */
  orphanWindowMs: number;
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
  orphanWindowMs: 0,
  retention: 'as-logged',
  sharedSessionStore: false,
};

/**
 * Log times from two nodes order two records no more closely than the nodes' clocks agree. A writer that
 * another node retired this soon after a takeover may well have been fenced first, as a server sharing its
 * store across nodes does (fence, then accept), with the clocks putting the fence after: which came first
 * cannot be told. A stale writer stays up far longer, until a socket times out (the independent generator's
 * fuzzed log: 18 cross-node retirements 22-225 ms after the takeover, under clocks up to 250 ms apart; its
 * injected dual writers, 5 to 60 s). dual-writer and engine-divergence read it.
 */
export const CROSS_NODE_ORDER_MS = 1_000;

/**
 * An event id first sent this soon after the resumption that named it is taken for one sent before it, by a
 * node whose clock runs ahead (log-format.md: skew between instances is a fact of life). Beyond it, the id was
 * no position yet when the client presented it: "ever emitted" read as "emitted by then" (README, decisions).
 * phantom-event-id and engine-divergence read it.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 10_000;
