import type { Db } from '../../store/db.js';
import type { DetectOptions } from '../types.js';
import { loadProxyView, type ProxyView } from './proxy-view.js';
import { loadReconnects, type Reconnect } from './reconnects.js';
import { loadBufferEvictions, type BufferEviction } from './buffer-evictions.js';

const shared = new WeakMap<Db, { key: string; facts: ReconnectFacts }>();

/** The facts several rules judge from, each loaded once (and only if asked for). */
export class ReconnectFacts {
  /**
   * The facts of this database as it is now: both detector families judge
   * from them, so the second reuses what the first loaded unless a write (on
   * this connection: total_changes; on another: data_version) or other options
   * came in between.
   */
  static of(db: Db, opts: DetectOptions): ReconnectFacts {
    const changes = db.prepare('SELECT total_changes()').pluck().get() as number;
    const otherWriters = db.pragma('data_version', { simple: true }) as number;
    const key = `${changes}|${otherWriters}|${JSON.stringify(opts)}`;
    const cached = shared.get(db);
    if (cached?.key === key) return cached.facts;
    const facts = new ReconnectFacts(db, opts);
    shared.set(db, { key, facts });
    return facts;
  }

  private reconnectList?: Reconnect[];
  private evictionMap?: Map<string, BufferEviction[]>;
  private proxyView?: ProxyView;

  constructor(
    readonly db: Db,
    readonly opts: DetectOptions,
  ) {}

  get reconnects(): Reconnect[] {
    return (this.reconnectList ??= loadReconnects(this.db, this.opts));
  }

  /** Accepted stream resumptions (decision resume, 2xx). */
  get resumptions(): Reconnect[] {
    return this.reconnects.filter((r) => r.decision === 'resume');
  }

  get evictions(): Map<string, BufferEviction[]> {
    return (this.evictionMap ??= loadBufferEvictions(this.db, this.opts));
  }

  get proxy(): ProxyView {
    return (this.proxyView ??= loadProxyView(this.db, this.opts));
  }

  isProxyOnly(session: string): boolean {
    return this.proxy.proxyOnly.has(session);
  }
}
