import { nodeLosses } from '../detect/node-losses.js';
import type { NodeLoss } from '../model/finding.js';
import { DEFAULT_DETECT_OPTIONS } from '../model/thresholds.js';
import type { Db } from '../store/db.js';

// The sessions lost without a log line (detect/node-losses.ts) as a log that is still growing shows them:
// what the dashboard lists and `watch --format ndjson` tells on stderr. Every refresh asks what changed
// since the last one (new rowids, a node's last line); the question itself reads the whole log's 404s
// (0.4 s at 1M lines), so it is asked again only when something can have changed its answer.

export interface LiveLossesOptions {
  /** A log still growing (watch): a silent node may only be late, and the question is rate-limited. */
  live: boolean;
  /** The nodes share one session store (--shared-session-store): any node may lose a session. */
  sharedSessionStore?: boolean;
  /** Wall clock, for the rate limit. */
  now?: () => number;
}

/** Live, the losses are read again at most this often. */
const LOSS_RECHECK_MS = 5_000;
/**
 * Live, a node whose file comes in late looks silent for a moment: a loss other nodes answered (the node that
 * created the sessions logged nothing more) is shown once the log has gone on this long after its last line.
 */
export const LIVE_SILENCE_MS = 30_000;

export class LiveLosses {
  private losses: NodeLoss[] = [];
  private seenUpTo = 0;
  private due = false;
  private readAt = -Infinity;
  /** The last record read by the last question: with no record since, its answer stands. */
  private readUpTo = -1;
  private readonly now: () => number;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly opts: LiveLossesOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.q = {
      maxId: db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck(),
      newestMs: db.prepare('SELECT max(last_ms) FROM node_records').pluck(),
      new404: db.prepare("SELECT 1 FROM records WHERE id > ? AND status = 404 AND origin = 'server' LIMIT 1").pluck(),
      nodeLastMs: db.prepare('SELECT last_ms FROM node_totals WHERE node IS ?').pluck(),
    };
  }

  /** The losses shown now, in time order. */
  get shown(): readonly NodeLoss[] {
    return this.losses;
  }

  /**
   * Takes in the records stored since the last refresh. The losses are read again after a new 404, while one is
   * held back, or once the node of a loss shown as silent has logged again (it was late: the loss is taken back);
   * live, at most every LOSS_RECHECK_MS, and only once records came since the last reading (the same log gives
   * the same answer). A reading the limit put off is due: a caller calls refresh on a timer while no line comes
   * (watch, every second), or it would wait for the next line. At the run's `end` they are read whatever the clock
   * says; and where every file had been read as far as it went (`caughtUp`), a node that logged nothing more is
   * silent, not late: they are read as `analyze` would read them.
   */
  refresh(end?: { caughtUp: boolean }): void {
    const from = this.seenUpTo;
    this.seenUpTo = this.q.maxId.get() as number;
    if (this.q.new404.get(from) !== undefined || this.spokeAgain()) this.due = true;
    const at = this.now();
    if (!this.due || (this.opts.live && end === undefined && (at - this.readAt < LOSS_RECHECK_MS || this.seenUpTo === this.readUpTo))) return;
    const all = nodeLosses(this.db, { ...DEFAULT_DETECT_OPTIONS, sharedSessionStore: this.opts.sharedSessionStore ?? false });
    const newest = this.opts.live && end?.caughtUp !== true ? ((this.q.newestMs.get() as number | null) ?? -Infinity) : Infinity;
    this.losses = all.filter((l) => l.silent_after_ms === undefined || newest - l.silent_after_ms >= LIVE_SILENCE_MS);
    // one held back is asked about again at the next refresh (after LOSS_RECHECK_MS), new 404 or not
    this.due = this.losses.length < all.length;
    this.readAt = at;
    this.readUpTo = this.seenUpTo;
  }

  /** A loss shown because its node fell silent, whose node has logged since. */
  private spokeAgain(): boolean {
    return this.losses.some((l) => l.silent_after_ms !== undefined && ((this.q.nodeLastMs.get(l.node) as number | null | undefined) ?? -Infinity) > l.silent_after_ms);
  }
}
