import type { Db } from '../../store/db.js';
import type { DetectOptions } from '../types.js';
import { loadProxyView, type ProxyView } from './proxy-view.js';
import { loadReconnects, type Reconnect } from './reconnects.js';
import { loadBufferEvictions, type BufferEviction } from './buffer-evictions.js';

/** The facts several rules judge from, each loaded once (and only if asked for). */
export class ReconnectFacts {
  /** The shared fact (RuleContext.shared): one per run, let go after the last rule that reads it. */
  static of(db: Db, opts: DetectOptions): ReconnectFacts {
    return new ReconnectFacts(db, opts);
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
