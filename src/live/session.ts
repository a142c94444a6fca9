import { performance } from 'node:perf_hooks';
import { RULES } from '../detect/rules/index.js';
import type { RunOptions } from '../detect/run.js';
import { DEFAULT_DETECT_OPTIONS, type DetectOptions } from '../detect/types.js';
import { isProxyOnlyReason } from '../detect/facts/proxy-only.js';
import type { Finding } from '../model/finding.js';
import type { InputLine } from '../read/lines.js';
import type { LinesThrough } from '../read/follow.js';
import { noteFollowedPrefix } from '../store/followed-prefix.js';
import type { Db } from '../store/db.js';
import { derive, detect } from '../pipeline/derived.js';
import { SourceIngest, type SourceStats } from '../pipeline/ingest.js';
import { FindingBook } from './finding-book.js';
import { ContextIndex } from './context-index.js';
import { detectScoped, type ScopedRun } from './scope.js';
import { dependentSessions, neededRejudging, noteUnplacedReferences } from './dependents.js';
import { appendAll } from '../model/arrays.js';

// The incremental pipeline behind `watch`: batches of lines go into the store
// as they arrive (one transaction each), and a detection round re-derives and
// re-judges only the sessions touched since the last round.

export interface LiveSessionOptions {
  detect?: RunOptions;
  inputFormat?: string;
  /** Wall clock, for settling end-of-log findings (finding-book.ts). */
  now?: () => number;
  settleMs?: number;
}

/**
 * Rules whose "not knowable" can turn into a verdict by the log merely going
 * on (`live.recheckAfterMs`): stale-writer-blocks-reconnect cannot be judged
 * while the log ends inside the fence grace period after a rejection. A session
 * left so is judged again as the log grows, until the log has passed its last
 * record by the rule's period.
 */
const RECHECK_AFTER = new Map<string, (opts: DetectOptions) => number>(RULES.flatMap((r) => (r.live.recheckAfterMs === undefined ? [] : [[r.id, r.live.recheckAfterMs] as const])));

/**
 * How far the log goes on (log time) before the untouched sessions a batch can change the verdict of
 * (`live.rejudges`) are judged, each once however many batches name it meanwhile: judged in the very
 * round, they doubled a busy tail's rounds (100k production lines, 50-line rounds: median 470 → 880 ms).
 * The end of the run judges them all (finish).
 */
export const REJUDGE_AFTER_MS = 5_000;

/** A round whose sessions hold at least 1 in this many of the log's records judges the whole log in place. */
const WHOLE_LOG_SHARE = 4;

/** What one detection round did. */
export interface DetectionRound {
  /** Findings never announced before, oldest first. */
  fresh: Finding[];
  /** The sessions re-judged. */
  sessions: string[];
  /** Records judged, including the context sessions copied for lookups. */
  records: number;
  deriveMs: number;
  detectMs: number;
  /** True when the round judged the whole database in place rather than the sessions in scratch databases. */
  wholeLog?: boolean;
}

export class LiveSession {
  readonly book: FindingBook;
  private readonly index: ContextIndex;
  private readonly ingests = new Map<string, SourceIngest>();
  /** Every source's counts, kept after it ended: what the end of the run reports per file. */
  private readonly counts = new Map<string, SourceStats>();
  private readonly touched = new Set<string>();
  /** Every session the database holds. */
  private readonly known = new Set<string>();
  /** Per session, bumped whenever a batch touches it: views cache on it. */
  private readonly revisions = new Map<string, number>();
  /** Records up to this id have been judged (the session-less ones are judged once, when new). */
  private judgedUpTo = 0;
  /** Sessions to judge again as the log grows, and the log time after which their verdict stands. */
  private readonly recheck = new Map<string, number>();
  /** The latest record by time: where the log ends so far. */
  private logEnd: { id: number; ts_ms: number } | undefined;
  private readonly lastRecordId;
  private readonly latestSince;
  private readonly lastSeen;
  private readonly sessionRecords;
  private readonly now: () => number;
  private readonly rejudging;
  /** Sessions to judge again though no batch touched them, and the log time from which they are due. */
  private readonly deferred = new Map<string, number>();
  /** Per source still growing, the latest record time its lines have shown (a file's lines come in time order). */
  private readonly shownUpTo = new Map<string, number>();
  private readonly latestOfBatch;

  constructor(
    readonly db: Db,
    private readonly opts: LiveSessionOptions = {},
  ) {
    this.book = new FindingBook(opts.settleMs);
    this.index = new ContextIndex(db);
    this.now = opts.now ?? Date.now;
    this.rejudging = neededRejudging(opts.detect?.disabled ?? []);
    this.lastRecordId = db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck();
    this.lastSeen = db.prepare('SELECT max(ts_ms) FROM records WHERE session = ?').pluck();
    this.sessionRecords = db.prepare('SELECT count(*) FROM records WHERE session = ?').pluck();
    this.latestSince = db.prepare('SELECT id, ts_ms FROM records WHERE id > ? ORDER BY ts_ms DESC, id DESC LIMIT 1');
    // A batch's own records (its transaction writes no other source's): a range of ids, read once per batch. Not
    // filtered by source_id, which would have SQLite search records_source_line, every record of the source a batch.
    this.latestOfBatch = db.prepare('SELECT max(ts_ms) FROM records WHERE id > ?').pluck();
    // A --db file that holds records already: its sessions are judged in the first round.
    for (const s of db.prepare('SELECT DISTINCT session FROM records WHERE session IS NOT NULL').pluck().all() as string[]) {
      this.touched.add(s);
      this.known.add(s);
    }
  }

  /**
   * Writes one batch of one source's lines in one transaction; returns how many records it added. `through`:
   * what of its file the source's lines now hold, kept with them (store/followed-prefix.ts).
   */
  addLines(source: string, lines: InputLine[], through?: LinesThrough): number {
    if (lines.length === 0) return 0;
    return this.write(source, (ingest) => {
      for (const l of lines) ingest.add(l);
      if (through !== undefined) noteFollowedPrefix(this.db, ingest.sourceId, through, through.first);
    });
  }

  /** The sources that got no end (their file was not read to its end when the run stopped), with their counts. */
  notEnded(): SourceStats[] {
    return [...this.ingests.keys()].map((s) => this.counts.get(s)!);
  }

  /**
   * The source will get no more lines (its file was rotated away, stdin ended, or the run stopped): a line waiting
   * on its last piece is read as it stands. `sha256`: the content hash of the whole file the source read, recorded
   * as ingest records a file's, so that ingesting that file into the same --db later adds nothing (the placeholder
   * stays where the bytes were not all read, or another source has that content already).
   */
  endSource(source: string, sha256?: string): void {
    const ingest = this.ingests.get(source);
    if (ingest === undefined) return;
    this.write(source, (i) => {
      i.end();
      this.db.prepare('UPDATE sources SET complete = 1 WHERE id = ?').run(i.sourceId);
      if (sha256 !== undefined) {
        this.db.prepare('UPDATE sources SET sha256 = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM sources WHERE sha256 = ?)').run(sha256, i.sourceId, sha256);
      }
    });
    this.ingests.delete(source);
    // No line of it can come any more: nothing waits on it.
    this.shownUpTo.delete(source);
  }

  /** One transaction on a source's ingest; returns how many records it added, and marks the sessions it touched. */
  private write(source: string, fn: (ingest: SourceIngest) => void): number {
    const ingest = this.ingests.get(source) ?? this.open(source);
    let added = 0;
    this.db.transaction(() => {
      const before = ingest.stats.records;
      const lastBefore = this.lastRecordId.get() as number;
      fn(ingest);
      // Counts and the dirty sessions are written per batch; the content hash stays a placeholder while the file grows.
      ingest.finish(null);
      added = ingest.stats.records - before;
      if (added > 0) {
        const latest = this.latestOfBatch.get(lastBefore) as number | null;
        if (latest !== null) this.shownUpTo.set(source, Math.max(this.shownUpTo.get(source) ?? latest, latest));
      }
    })();
    for (const s of ingest.touched) {
      this.touched.add(s);
      this.known.add(s);
      this.revisions.set(s, (this.revisions.get(s) ?? 0) + 1);
    }
    ingest.touched.clear();
    return added;
  }

  /** True when records arrived since the last detection round. */
  get pending(): boolean {
    return this.touched.size > 0 || (this.lastRecordId.get() as number) > this.judgedUpTo;
  }

  revision(session: string): number {
    return this.revisions.get(session) ?? 0;
  }

  /**
   * Re-derives and re-judges the touched sessions (and those waiting on the log to go on); `all`: every
   * session waiting, due or not (the end of the run).
   */
  detect(all = false): DetectionRound {
    const t0 = performance.now();
    derive(this.db);
    const t1 = performance.now();
    const from = this.judgedUpTo;
    this.judgedUpTo = this.lastRecordId.get() as number;
    const latest = this.latestSince.get(from) as { id: number; ts_ms: number } | undefined;
    const endMoved = latest !== undefined && (this.logEnd === undefined || latest.ts_ms > this.logEnd.ts_ms);
    if (endMoved) this.logEnd = latest;
    const options = { ...DEFAULT_DETECT_OPTIONS, ...definedOptions(this.opts.detect) };
    const judged = new Set(this.touched);
    this.index.update();
    const holds = (session: string, rule: string) => this.book.forSession(session).some((f) => f.rule === rule);
    const logTime = this.logEnd?.ts_ms ?? 0;
    for (const s of dependentSessions(this.db, this.index, this.touched, from, this.rejudging, options.duplicateCallWindowMs, holds)) {
      if (!this.deferred.has(s)) this.deferred.set(s, logTime + REJUDGE_AFTER_MS);
    }
    // What this round judges is where the followed files have got to: a finding later than that is held (finding-book.ts).
    this.book.noteShownThrough(this.shownThrough());
    // A session whose finding waits to settle is judged at once: the batch may withdraw it before it is announced.
    const held = this.book.heldSessions();
    for (const [s, due] of this.deferred) if (all || due <= logTime || held.has(s)) judged.add(s);
    for (const s of judged) this.deferred.delete(s);
    this.touched.clear();
    if (endMoved) for (const s of this.recheck.keys()) judged.add(s);
    const sessions = [...judged];
    const fresh: Finding[] = [];
    let records = 0;
    let wholeLog = false;
    const now = this.now();
    noteUnplacedReferences(this.db, this.index, from, this.rejudging);
    for (const run of this.judge(sessions, from)) {
      appendAll(fresh, this.book.apply(run.sessions, run.findings, now));
      records += run.records;
      wholeLog ||= run.wholeLog === true;
      for (const s of run.sessions) this.recheck.delete(s);
      for (const n of run.notKnowable) {
        const period = RECHECK_AFTER.get(n.rule)?.(options) ?? 0;
        // A period of 0 (orphaned-request's default window): the log going on settles nothing of this rule. Nor of a
        // session only a proxy saw: a server line of it would touch it, and it is judged again then.
        if (n.session === null || period <= 0 || isProxyOnlyReason(n.reason)) continue;
        const until = (this.lastSeen.get(n.session) as number) + period;
        this.recheck.set(n.session, Math.max(this.recheck.get(n.session) ?? until, until));
      }
    }
    // Past the grace period after a session's last record, more log cannot change its verdict.
    for (const [s, until] of this.recheck) if (this.logEnd !== undefined && this.logEnd.ts_ms > until) this.recheck.delete(s);
    appendAll(fresh, this.book.settle(now));
    return { fresh, sessions, records, deriveMs: t1 - t0, detectMs: performance.now() - t1, wholeLog };
  }

  /**
   * The touched sessions judged in scratch databases of their own (and the context their rules look
   * up), or, when they hold a good part of the log's records (a catch-up over a log that was already
   * long when `watch` began, or a --db file's first round), the whole database judged as analyze judges
   * it: copying most of the log slice by slice costs more than reading it in place, and every session
   * then has all its context. Decided by records, what either way costs, not by sessions: a burst of
   * short sessions a quarter of a young log's sessions sent each round to the whole log (a 4-minute soak
   * at 500 lines/s: 455 sessions of 19 records judged with the whole 27k-record log, 3.7 s of CPU), and
   * the wait after it held every finding of the burst for a minute.
   */
  private judge(sessions: string[], from: number): (ScopedRun & { wholeLog?: boolean })[] {
    // A few sessions may still hold most of the log (a soak test of one client): copying them into a scratch
    // database every round cost 4-5 times judging the log in place (one session of 400k lines: 43 s a round).
    if (!this.holdRecords(sessions, Math.ceil(this.judgedUpTo / WHOLE_LOG_SHARE))) {
      return detectScoped(this.db, this.index, sessions, from, this.opts.detect, this.logEnd?.id);
    }
    const report = detect(this.db, this.opts.detect);
    return [
      {
        sessions: [...this.known],
        findings: report.findings,
        notKnowable: report.not_knowable.filter((n) => n.session !== null),
        contextSessions: 0,
        records: report.summary.records,
        wholeLog: true,
      },
    ];
  }

  /** The least of the latest record times of the sources still growing: every one has shown lines up to it. */
  private shownThrough(): number {
    let through = Number.POSITIVE_INFINITY;
    for (const ms of this.shownUpTo.values()) through = Math.min(through, ms);
    return through;
  }

  /** Whether the sessions hold `least` records or more (counted in the records_session index, up to that many). */
  private holdRecords(sessions: string[], least: number): boolean {
    let n = 0;
    for (const session of sessions) {
      if (n >= least) return true;
      n += this.sessionRecords.get(session) as number;
    }
    return n >= least;
  }

  /** The end of the run: judges what arrived last and every session waiting to be judged again; undefined when none is. */
  finish(): DetectionRound | undefined {
    // The end of the run is each file's end: a line waiting on its last piece is read as it stands.
    for (const source of [...this.ingests.keys()]) this.write(source, (i) => i.end());
    return this.pending || this.deferred.size > 0 ? this.detect(true) : undefined;
  }

  /**
   * End-of-log findings that have stood long enough (every one that still
   * stands, when the run ends): announce these.
   */
  settle(end = false): Finding[] {
    return this.book.settle(this.now(), end);
  }

  /** When settle() will next have something, by the wall clock; undefined when nothing waits. */
  nextSettle(): number | undefined {
    return this.book.nextSettle();
  }

  /** The counts of one source (lines, records, rejected lines and the first of them), live: undefined before its first line. */
  statsOf(source: string): SourceStats | undefined {
    return this.counts.get(source);
  }

  /** The counts of every source stored so far, in the order they began. */
  sourceStats(): SourceStats[] {
    return [...this.counts.values()];
  }

  private open(source: string): SourceIngest {
    const ingest = new SourceIngest(this.db, source, { complete: false, ...(this.opts.inputFormat !== undefined && { inputFormat: this.opts.inputFormat }) });
    this.ingests.set(source, ingest);
    this.counts.set(source, ingest.stats);
    return ingest;
  }
}

/** The detect options a run was given, without the keys left undefined (they must not hide the defaults). */
function definedOptions(o: RunOptions | undefined): Partial<DetectOptions> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<DetectOptions>;
}
