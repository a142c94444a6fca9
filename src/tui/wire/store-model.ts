import { findingIdentity } from '../../findings/identity.js';
import type { FindingBook } from '../../live/finding-book.js';
import { isoTime } from '../../model/phrasing.js';
import type { Db } from '../../store/db.js';
import { loadQuery } from '../../store/queries.js';
import { LiveLosses } from '../../live/losses.js';
import { formatRate } from '../safe-text.js';
import { toFeedItem, type DashboardModel, type LossNotice, type SessionRow, type SessionState, type SourceEvent } from '../view-model.js';
import { SeriesCounter } from './series.js';
import { chartRecordsAfter } from './store-series.js';

// Builds the dashboard's model from the store. Every query is either over the
// records that are new since the last refresh (by rowid) or over one session
// (by the session index), so a refresh costs what changed, not the history:
// session rows are kept and only the touched ones re-read.

export interface ModelSourceOptions {
  sources: string[];
  mode: DashboardModel['mode'];
  /** Wall clock for the record rate (live mode). */
  now?: () => number;
  /** The nodes share one session store (--shared-session-store): any node may lose a session. */
  sharedSessionStore?: boolean;
}

const MAX_SOURCE_EVENTS = 20;
/** Rate window: records per second over the last few seconds of wall time. */
const RATE_WINDOW_MS = 5_000;
/** Session rows' sessions whose state is judged from their findings. */
const FORK_RULES = new Set(['silent-fork', 'session-id-reuse']);

interface StoredRow extends Omit<SessionRow, 'findings' | 'state'> {
  incarnations: number;
  ended: boolean;
}

export class DashboardModelSource {
  private readonly rows = new Map<string, StoredRow>();
  private readonly counter = new SeriesCounter();
  private seenUpTo = 0;
  private readonly samples: { at: number; records: number }[] = [];
  private snapshot: DashboardModel | undefined;
  private bookVersion = -1;
  private events: SourceEvent[] = [];
  private readonly liveLosses: LiveLosses;
  private losses: LossNotice[] = [];
  /** The sessions of the losses shown: their rows say `lost`. */
  private lost = new Set<string>();
  private readonly now: () => number;
  private readonly q;

  constructor(
    private readonly db: Db,
    private readonly book: FindingBook,
    private readonly opts: ModelSourceOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.liveLosses = new LiveLosses(db, { live: opts.mode === 'live', sharedSessionStore: opts.sharedSessionStore ?? false, now: this.now });
    this.q = {
      totals: db.prepare('SELECT coalesce(sum(records), 0) AS records, coalesce(sum(rejected), 0) AS rejected, coalesce(sum(ignored), 0) AS ignored FROM sources'),
      newRecords: chartRecordsAfter(db),
      maxId: db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck(),
      // Not DISTINCT: that walks the session index over the whole table instead of the new rowids.
      newSessions: db.prepare("SELECT session FROM records WHERE id > ? AND +session IS NOT NULL AND kind <> 'http'").pluck(),
      lastSeen: db.prepare('SELECT max(ts_ms) FROM records WHERE session = ? AND shadowed = 0').pluck(),
      streams: db.prepare('SELECT count(*) FROM streams WHERE session = ?').pluck(),
      // A session row's report questions, in queries/reports/ (session-*.sql), with :session.
      lastUpgrade: db.prepare(loadQuery('reports/session-last-upgrade')),
      counters: db.prepare(loadQuery('reports/session-replay-counters')),
      incarnations: db.prepare(loadQuery('reports/session-incarnations')),
      endRecord: db.prepare("SELECT 1 FROM records WHERE session = ? AND +kind IN ('session.terminated', 'session.evicted') AND shadowed = 0 LIMIT 1").pluck(),
    };
  }

  /**
   * Takes in the records stored since the last refresh, and re-reads the rows
   * of `sessions` (the touched ones; new sessions are found by themselves).
   */
  refresh(sessions: Iterable<string> = []): void {
    const from = this.seenUpTo;
    this.seenUpTo = this.q.maxId.get() as number;
    for (const r of this.q.newRecords.iterate(from)) this.counter.add(r);
    const stale = new Set(sessions);
    for (const s of this.q.newSessions.all(from) as string[]) stale.add(s);
    for (const s of stale) this.readRow(s);
    this.readLosses();
    this.snapshot = undefined;
  }

  /**
   * Reads the losses again where a reading is due, lines or not: a 404 that came within the rate limit
   * (losses.ts) is read once the limit has passed, though no line came since (watch calls this every
   * second). True when the losses shown changed.
   */
  refreshLosses(): boolean {
    const changed = this.readLosses();
    if (changed) this.snapshot = undefined;
    return changed;
  }

  private readLosses(): boolean {
    const before = this.liveLosses.shown;
    this.liveLosses.refresh();
    const shown = this.liveLosses.shown;
    if (shown === before) return false;
    this.losses = shown.map((l) => ({ node: l.node, sessions: l.sessions, from: isoTime(l.from_ms), until: isoTime(l.until_ms) }));
    this.lost = new Set(shown.flatMap((l) => l.lost.map((x) => x.session)));
    return true;
  }

  /** A followed file was rotated or truncated (`text`: how): the header says so. */
  noteSourceEvent(source: string, text: string): void {
    this.events = [...this.events.slice(-(MAX_SOURCE_EVENTS - 1)), { at: new Date(this.now()).toISOString(), source, text }];
    this.snapshot = undefined;
  }

  /** The current model: the same object until something changed, a new one after. */
  model(): DashboardModel {
    const unchanged = this.snapshot !== undefined && this.bookVersion === this.book.version;
    if (unchanged && (this.opts.mode !== 'live' || !this.rateIsStale())) return this.snapshot!;
    const totals = this.q.totals.get() as { records: number; rejected: number; ignored: number };
    // The rate moves with the clock: live, it is read again each second, but a rate that reads the same
    // keeps the snapshot, so an idle dashboard is not drawn again (the same frame, each second).
    if (unchanged) {
      const rate = this.rate(totals.records);
      if (formatRate(rate) === formatRate(this.snapshot!.ratePerSec)) return this.snapshot!;
      this.snapshot = { ...this.snapshot!, ratePerSec: rate };
      return this.snapshot;
    }
    this.bookVersion = this.book.version;
    const findings = this.book.all();
    const feed = findings.map((f) => toFeedItem(f, findingIdentity(f))).reverse();
    const sessions = [...this.rows.values()]
      .map((r) => this.sessionRow(r))
      .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : a.session.localeCompare(b.session)));
    this.snapshot = {
      sources: this.opts.sources,
      mode: this.opts.mode,
      records: totals.records,
      ratePerSec: this.rate(totals.records),
      rejected: totals.rejected,
      ignored: totals.ignored,
      bySeverity: this.book.countBySeverity(),
      feed,
      sessions,
      series: this.counter.series(),
      sourceEvents: this.events,
      losses: this.losses,
    };
    return this.snapshot;
  }

  private readRow(session: string): void {
    const up = this.q.lastUpgrade.get({ session }) as { last_event_id: string | null; decision: string; status: number | null } | undefined;
    const counters = this.q.counters.get({ session }) as { replayed: number; reemitted: number };
    const inc = this.q.incarnations.get({ session }) as { n: number; ended: number | null };
    const lastSeen = this.q.lastSeen.get(session) as number | null;
    if (lastSeen === null) {
      this.rows.delete(session);
      return;
    }
    this.rows.set(session, {
      session,
      streams: this.q.streams.get(session) as number,
      lastTriple: up ? { lastEventId: up.last_event_id, decision: up.decision, ...(up.status !== null && { status: up.status }) } : null,
      replayed: counters.replayed,
      reemitted: counters.reemitted,
      lastSeen: isoTime(lastSeen),
      incarnations: inc.n,
      ended: inc.n > 0 ? inc.ended === 1 : this.q.endRecord.get(session) !== undefined,
    });
  }

  private sessionRow(r: StoredRow): SessionRow {
    const findings = this.book.forSession(r.session);
    return {
      session: r.session,
      state: stateOf(r, findings.some((f) => FORK_RULES.has(f.rule)), this.lost.has(r.session)),
      streams: r.streams,
      lastTriple: r.lastTriple,
      replayed: r.replayed,
      reemitted: r.reemitted,
      findings: findings.length,
      lastSeen: r.lastSeen,
    };
  }

  /** Records per second over the last few seconds; 0 for recorded logs. */
  private rate(records: number): number {
    if (this.opts.mode !== 'live') return 0;
    const at = this.now();
    this.samples.push({ at, records });
    while (this.samples.length > 1 && this.samples[0]!.at < at - RATE_WINDOW_MS) this.samples.shift();
    const first = this.samples[0]!;
    const seconds = (at - first.at) / 1000;
    return seconds > 0 ? (records - first.records) / seconds : 0;
  }

  private rateIsStale(): boolean {
    const last = this.samples[this.samples.length - 1];
    return last === undefined || this.now() - last.at >= 1000;
  }
}

function stateOf(r: StoredRow, forked: boolean, lost: boolean): SessionState {
  if (forked || r.incarnations > 1) return 'forked';
  // the log never ends a lost session: its 404s say it is gone
  if (lost) return 'lost';
  if (r.ended) return 'ended';
  return r.incarnations > 0 ? 'live' : 'unknown';
}
