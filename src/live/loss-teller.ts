import type { NodeLoss } from '../model/finding.js';
import type { Db } from '../store/db.js';
import { LossAnnouncer } from './loss-announcer.js';
import { LiveLosses } from './losses.js';

/**
 * The losses of a followed log, to be told on stderr beside the NDJSON: each when first shown, and those grown
 * since at the end (`byTheEnd`). The caller words them (render's lossNote).
 */
export class LossTeller {
  private readonly losses: LiveLosses;
  private readonly announcer = new LossAnnouncer();

  constructor(
    db: Db,
    sharedSessionStore: boolean,
    private readonly tellOne: (loss: NodeLoss, byTheEnd: boolean) => void,
  ) {
    this.losses = new LiveLosses(db, { live: true, sharedSessionStore });
  }

  tell(): void {
    this.losses.refresh();
    for (const loss of this.announcer.fresh(this.losses.shown)) this.tellOne(loss, false);
  }

  /** Caught up, a node that logged nothing more is silent, not late; otherwise a silent node's loss is still held back. */
  tellAtEnd(caughtUp: boolean): void {
    this.losses.refresh({ caughtUp });
    for (const loss of this.announcer.untold(this.losses.shown)) this.tellOne(loss, true);
  }
}
