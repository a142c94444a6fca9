import type { Db } from '../../store/db.js';
import { FactTable } from '../fact-table.js';
import type { DetectOptions } from '../types.js';
import { loadProxyView, type ProxyView } from './proxy-view.js';
import { groupReconnects, type Reconnect, type ReconnectRow } from './reconnects.js';
import { Evictions } from './buffer-evictions.js';

/** The facts several rules judge from. */
export class ReconnectFacts {
  /** The shared fact (RuleContext.shared): one per run, released after the last rule that reads it. */
  static of(db: Db, opts: DetectOptions): ReconnectFacts {
    return new ReconnectFacts(db, opts);
  }

  // Made at once (see FactTable: a rule may look a reconnect up while it reads another fact).
  private readonly references: FactTable<ReconnectRow>;
  readonly evictions: Evictions;
  private proxyView?: ProxyView;

  constructor(
    readonly db: Db,
    readonly opts: DetectOptions,
  ) {
    this.references = new FactTable<ReconnectRow>(db, 'facts/reconnect-references', opts).indexOn('up_id');
    this.evictions = Evictions.of(db, opts);
  }

  /** The served reconnects (queries/facts/reconnect-references.sql), one at a time, in time order. */
  get reconnects(): Iterable<Reconnect> {
    return groupReconnects(this.references.rows());
  }

  /** Accepted stream resumptions (decision resume, 2xx). */
  get resumptions(): Iterable<Reconnect> {
    return onlyResumes(this.reconnects);
  }

  /** The served reconnect made by this upgrade, if it is one. */
  reconnectOf(upgradeId: number): Reconnect | undefined {
    for (const r of groupReconnects(this.references.where('up_id', upgradeId))) return r;
    return undefined;
  }

  get proxy(): ProxyView {
    return (this.proxyView ??= loadProxyView(this.db, this.opts));
  }

  isProxyOnly(session: string): boolean {
    return this.proxy.proxyOnly.has(session);
  }

  /** Lets the reconnect and eviction tables go (the run calls it after the last rule that declares this fact). */
  release(): void {
    this.references.drop();
    this.evictions.drop();
  }
}

function* onlyResumes(reconnects: Iterable<Reconnect>): Generator<Reconnect> {
  for (const r of reconnects) if (r.decision === 'resume') yield r;
}
