import type { NodeLoss } from '../model/finding.js';

// Which losses of a growing log to tell of, on a stream that cannot take a line back (watch's stderr beside
// its NDJSON): each loss the first time it is shown, and at the run's end each that has grown since (its
// headline then gives the final count) or was never told. A loss is known by its node and sessions, as its
// first 404 may move when a late file brings an earlier one.

export class LossAnnouncer {
  /** `node \0 session` of every session told of. */
  private readonly told = new Set<string>();

  /** The losses shown now of which no session was told before. */
  fresh(shown: readonly NodeLoss[]): NodeLoss[] {
    return this.take(shown, (untold, loss) => untold === loss.lost.length);
  }

  /** At the end: the losses shown with a session not told of yet. */
  untold(shown: readonly NodeLoss[]): NodeLoss[] {
    return this.take(shown, (untold) => untold > 0);
  }

  private take(shown: readonly NodeLoss[], tell: (untold: number, loss: NodeLoss) => boolean): NodeLoss[] {
    const out: NodeLoss[] = [];
    for (const loss of shown) {
      const keys = loss.lost.map((s) => `${loss.node ?? ''}\0${s.session}`);
      if (!tell(keys.filter((k) => !this.told.has(k)).length, loss)) continue;
      for (const k of keys) this.told.add(k);
      out.push(loss);
    }
    return out;
  }
}
