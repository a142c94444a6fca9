import type { NodeLoss } from '../model/finding.js';

// Which losses of a growing log to tell of, on a stream that cannot take a line back (watch's stderr beside
// its NDJSON): each loss the first time it is shown, and at the run's end each that has grown since (more
// sessions, or more 404s: its headline then gives the final counts) or was never told. A loss is known by its
// node and sessions, as its first 404 may move when a late file brings an earlier one.

export class LossAnnouncer {
  /** `node \0 session` of every session told of, and the 404s of the loss it was told in (the most, if told twice). */
  private readonly told = new Map<string, number>();

  /** The losses shown now of which no session was told before. */
  fresh(shown: readonly NodeLoss[]): NodeLoss[] {
    return this.take(shown, (untold, loss) => untold === loss.lost.length);
  }

  /** At the end: the losses shown with a session not told of yet, or with more 404s than when told. */
  untold(shown: readonly NodeLoss[]): NodeLoss[] {
    return this.take(shown, (untold, loss, toldNotFound) => untold > 0 || loss.not_found > toldNotFound);
  }

  private take(shown: readonly NodeLoss[], tell: (untold: number, loss: NodeLoss, toldNotFound: number) => boolean): NodeLoss[] {
    const out: NodeLoss[] = [];
    for (const loss of shown) {
      const keys = loss.lost.map((s) => `${loss.node ?? ''}\0${s.session}`);
      const untold = keys.filter((k) => !this.told.has(k)).length;
      // a loop, not Math.max(...keys): a loss of 130,000 sessions overflows the call stack as arguments
      let toldNotFound = 0;
      for (const k of keys) toldNotFound = Math.max(toldNotFound, this.told.get(k) ?? 0);
      if (!tell(untold, loss, toldNotFound)) continue;
      for (const k of keys) this.told.set(k, Math.max(this.told.get(k) ?? 0, loss.not_found));
      out.push(loss);
    }
    return out;
  }
}
