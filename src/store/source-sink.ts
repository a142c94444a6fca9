import { REJECTED_PREVIEW, type NormalizedLine } from '../model/record.js';
import { isLocked, isStorageFailure, lockedError, storageError, type Db } from './db.js';
import { deferIndexes } from './bulk-load.js';
import { recordWriter, type Param, type RecordWriter, type RowShape } from './insert.js';
import {
  IGNORED, IGNORED_HINT, INHERITING, inheritance, KEYED, LineEncoder, pastLine, readRecords, REJECTED, REJECTED_IN_PART, type LineBatch,
} from './line-cells.js';
import { interleaveNodeTies } from './node-ties.js';
import { lineTextReader } from './line-text.js';
import { RecentLines } from './recent-lines.js';
import { StatelessStreams } from './stateless-streams.js';
import { noteStream, settleLine, type LineRecord } from './inheriting-line.js';
import { NodeTally } from './node-tally.js';

// The store's side of ingest: it receives normalized lines (pipeline/ reads
// and normalizes them) and writes one source's records, rejected lines and
// counts in one transaction (line-cells.ts: how lines cross from the normalizing
// thread). It imports neither read/ nor normalize/.
export interface SourceStats {
  name: string;
  lines: number;
  recordLines: number;
  records: number;
  ignored: number;
  /** Of the ignored lines, those that repeat an earlier line of the source byte for byte (a shipper's second delivery). */
  repeated: number;
  rejected: number;
  format?: string;
  /** The first rejected line, for the "unusable input" message. */
  firstProblem?: { line: number; reason: string };
  /** The first ignored line that was almost a record (a kind in `message`, a `Kind` key), for the same message. */
  firstHint?: { line: number; hint: string };
  /** Set when the same bytes were ingested before: nothing was added. */
  duplicateOf?: string;
  /** With duplicateOf: those bytes gave records when first ingested, so the input is in the database. */
  duplicateHasRecords?: boolean;
  /** Could not be read at all (message), as opposed to read with bad lines. */
  readError?: string;
  /** Nodes that wrote records with `seq` in this source (for ordering ties across files). */
  seqNodes?: string[];
  /** With seqNodes: a record's time is earlier than one before it in the file, so a node's tied records may lie apart. */
  timeGoesBack?: boolean;
}

/** A regular, uncompressed input file as it was when read: its lines are re-read only while it is unchanged. */
export interface SourceFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** How many inputs the database holds. */
export function sourceCount(db: Db): number {
  return db.prepare('SELECT count(*) FROM sources').pluck().get() as number;
}

/** The lines every input the database holds had rejected, ignored and (of those ignored) repeated: each report counts them. */
export function lineTotals(db: Db): { rejected: number; ignored: number; repeated: number } {
  return db
    .prepare('SELECT coalesce(sum(rejected),0) AS rejected, coalesce(sum(ignored),0) AS ignored, coalesce(sum(repeated),0) AS repeated FROM sources')
    .get() as { rejected: number; ignored: number; repeated: number };
}

/** An input file is unusable when it cannot be read or not one of its lines is a record. */
export function isUnusable(s: SourceStats): boolean {
  return unusableReason(s) !== undefined;
}

/** Why an input is unusable, as stderr and the reports say it after `NAME: unusable: `; undefined when it is not. */
export function unusableReason(s: SourceStats): string | undefined {
  if (s.readError !== undefined) return s.readError;
  // records, not record lines: a batch line rejected in part still gave records. A repeated line is a record
  // read once (only a line that gave records is remembered): a page wholly inside another is read, not unusable.
  if (s.duplicateOf !== undefined || s.records > 0 || s.repeated > 0) return undefined;
  if (s.firstProblem) return `no record lines (line ${s.firstProblem.line}: ${s.firstProblem.reason})`;
  // A console's CSV download of an empty search: its header row, ignored, and nothing after it.
  if (s.lines === 1 && s.ignored === 1 && /\.csv$/i.test(s.name)) return 'no record lines (only a header row, no data rows: an empty CSV download)';
  const none = s.lines === 1 ? 'its only line is no resumption record' : `none of its ${s.lines} lines is a resumption record`;
  return `no record lines (${none}${s.firstHint ? `; line ${s.firstHint.line}: ${s.firstHint.hint}` : ''})`;
}

/** A run of equal timestamps is held to be put in seq order; past this size it is written as it came. */
const MAX_TIE_GROUP = 10_000;

/** A record waiting for its tie group to be complete: its statement parameters, laid out by its shape. */
interface Pending {
  shape: RowShape;
  params: Param[];
  subMs: number | null;
}

/**
 * Writes the normalized lines of one source into the store. Ties in time
 * within a run of equal timestamps are put in `seq` order, so that records
 * keep the order the node wrote them in (millisecond timestamps tie often).
 */
export class SourceSink {
  readonly stats: SourceStats;
  readonly sourceId: number;
  private readonly writer: RecordWriter;
  private tieGroup: Pending[] = [];
  private readonly rejectStmt;
  private readonly repeatStmt;
  readonly touched = new Set<string>();
  private readonly copyLines: boolean;
  private readonly seqNodes = new Set<string>();
  /** The latest time written so far, and whether a later line went back before it. */
  private latestTsMs = -Infinity;
  private timeWentBack = false;
  /** Lines added one by one are encoded here; their shapes are numbered apart from a feed's batches. */
  private readonly own = new LineEncoder();
  private readonly ownShapes: RowShape[] = [];
  private readonly batchShapes: RowShape[] = [];
  /** Lines that may come again, and the stateless requests' streams: kept here, which sees every line in order, whichever thread normalized it. */
  private readonly recent: RecentLines;
  private readonly streams = new StatelessStreams();
  private readLine: ReturnType<typeof lineTextReader> | undefined;
  private readonly nodes = new NodeTally();

  /**
   * `file`: the source is this regular, uncompressed file, and the store keeps where each line is in it
   * instead of a copy (re-read by store/line-text.ts while the file is unchanged). Without it every line is copied.
   * `recent`: the lines remembered so far, shared by a run's files (default: this file's own).
   */
  constructor(private readonly db: Db, name: string, opts: { complete?: boolean; file?: SourceFile; recent?: RecentLines } = {}) {
    this.rejectStmt = db.prepare('INSERT INTO rejected (source_id, line, reason, text) VALUES (?, ?, ?, ?)');
    this.repeatStmt = db.prepare('INSERT INTO repeated (source_id, line, of_source_id, of_line) VALUES (?, ?, ?, ?)');
    this.recent = opts.recent ?? new RecentLines();
    // A placeholder hash until the content is known; unique per run.
    const placeholder = `pending:${process.pid}:${Date.now()}:${Math.random()}`;
    this.sourceId = Number(
      db
        .prepare('INSERT INTO sources (name, sha256, complete, ingested_at, path, size, mtime_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(name, placeholder, opts.complete === false ? 0 : 1, new Date().toISOString(), opts.file?.path ?? null, opts.file?.size ?? null,
          opts.file?.mtimeMs ?? null).lastInsertRowid,
    );
    this.writer = recordWriter(db, this.sourceId);
    this.copyLines = opts.file === undefined;
    this.stats = { name, lines: 0, recordLines: 0, records: 0, ignored: 0, repeated: 0, rejected: 0 };
  }

  add(l: NormalizedLine): void {
    this.addLines([l]);
  }

  /** Lines normalized in this thread, in order (between a feed's batches too). */
  addLines(lines: Iterable<NormalizedLine>): void {
    for (const l of lines) this.own.add(l);
    this.read(this.own.take(), this.ownShapes);
  }

  /** The lines of a batch, in order: one source's batches come from one LineEncoder. */
  addBatch(batch: LineBatch): void {
    this.read(batch, this.batchShapes);
  }

  private read({ shapes: learnt, cells: c }: LineBatch, shapes: RowShape[]): void {
    for (const keys of learnt) shapes.push(this.writer.shape(keys));
    const stats = this.stats;
    let inPart = false;
    const store = (shape: RowShape, params: Param[], subMs: number | null) => {
      noteStream(this.streams, shape, params);
      this.hold(shape, params, subMs);
    };
    /** A line that may come again, and is remembered once it is known to give records (after INHERITING). */
    let keyed: { key: number; line: number; tsMs: number } | undefined;
    for (let i = 0; i < c.length; ) {
      const what = c[i++];
      if (what === IGNORED) {
        stats.lines++;
        stats.ignored++;
      } else if (what === IGNORED_HINT) {
        stats.lines++;
        stats.ignored++;
        stats.firstHint ??= { line: c[i] as number, hint: c[i + 1] as string };
        i += 2;
      } else if (what === KEYED) {
        const [key, line, tsMs] = [c[i] as number, c[i + 1] as number, c[i + 2] as number];
        i += 3;
        const first = this.recent.earlier(key, tsMs);
        if (first === undefined) {
          if (c[i] === INHERITING) keyed = { key, line, tsMs };
          else this.recent.note(key, { source: this.sourceId, line, tsMs });
        } else {
          // Delivered again: counted among the ignored lines, and its cells passed over.
          stats.lines++;
          stats.ignored++;
          stats.repeated++;
          this.repeatStmt.run(this.sourceId, line, first.source, first.line);
          i = pastLine(c, i, shapes);
        }
      } else if (what === REJECTED || what === REJECTED_IN_PART) {
        const line = c[i] as number;
        const reason = c[i + 1] as string;
        i += 3;
        this.reject(line, reason, c[i - 1] as string);
        // a line rejected in part: the RECORDS entry that follows is its records, not a line of its own
        inPart = what === REJECTED_IN_PART;
      } else if (what === INHERITING) {
        const line = c[i] as number;
        const { h, end } = inheritance(c, i);
        i = end;
        const records: LineRecord[] = [];
        // its RECORDS entry follows: past the marker, its format
        const format = c[i + 1] as string;
        i = readRecords(c, i + 1, shapes, (shape, params, subMs) => records.push({ shape, params, subMs }));
        const settled = settleLine(h, records, this.streams);
        if (settled.rejected !== undefined) this.reject(line, settled.rejected, this.textOf(records[0]));
        if (settled.kept.length > 0) {
          if (settled.rejected === undefined) this.recordLine(format);
          else stats.format ??= format;
          for (const r of settled.kept) this.hold(r.shape, r.params, r.subMs);
          if (keyed !== undefined) this.recent.note(keyed.key, { source: this.sourceId, line: keyed.line, tsMs: keyed.tsMs });
        }
        keyed = undefined;
      } else {
        if (inPart) {
          inPart = false;
          stats.format ??= c[i] as string;
        } else this.recordLine(c[i] as string);
        i = readRecords(c, i, shapes, store);
      }
    }
  }

  private recordLine(format: string): void {
    this.stats.lines++;
    this.stats.recordLines++;
    this.stats.format ??= format;
  }

  /** A line's text from its first record: the copy it carries, or the bytes it points to in the file (only a rejection asks). */
  private textOf(first: LineRecord | undefined): string | null {
    if (first === undefined) return null;
    const w = first.shape.width;
    const [raw, offset, bytes] = [first.params[w - 3] as string | null, first.params[w - 2] as number | null, first.params[w - 1] as number | null];
    this.readLine ??= lineTextReader(this.db);
    return this.readLine({ raw, sourceId: this.sourceId, offset, bytes })?.slice(0, REJECTED_PREVIEW) ?? null;
  }

  private reject(line: number, reason: string, text: string | null): void {
    const stats = this.stats;
    stats.lines++;
    stats.rejected++;
    stats.firstProblem ??= { line, reason };
    this.rejectStmt.run(this.sourceId, line, reason, text);
  }

  private hold(shape: RowShape, params: Param[], subMs: number | null): void {
    const last = this.tieGroup[this.tieGroup.length - 1];
    if (last && (last.params[last.shape.tsMs] !== params[shape.tsMs] || this.tieGroup.length >= MAX_TIE_GROUP)) this.flush();
    // A line that needs no copy is stored as where it is; a redacted line (no offset) always as its redacted text.
    const w = shape.width;
    if (!this.copyLines && params[w - 2] !== null) params[w - 3] = null;
    this.tieGroup.push({ shape, params, subMs });
  }

  /** Writes the pending tie group; call before committing a batch. */
  flush(): void {
    const group = this.tieGroup;
    if (group.length === 0) return;
    const tsMs = group[0]!.params[group[0]!.shape.tsMs] as number;
    if (tsMs < this.latestTsMs) this.timeWentBack = true;
    else this.latestTsMs = tsMs;
    for (const { shape, params: p } of group.length > 1 ? orderBySeq(orderBySubMs(group)) : group) {
      this.nodes.add(shape, p, this.writer.write(shape, p));
      this.stats.records++;
      if (shape.seq >= 0 && shape.node >= 0) this.seqNodes.add(p[shape.node] as string);
      if (shape.session >= 0 && p[shape.session]) this.touched.add(p[shape.session] as string);
      if (shape.newSession >= 0 && p[shape.newSession]) this.touched.add(p[shape.newSession] as string);
    }
    this.tieGroup = [];
  }

  /** Records counts and the content hash; false when those bytes were already ingested. */
  finish(sha256: string | null): boolean {
    this.flush();
    if (sha256 !== null) {
      const prior = this.db.prepare('SELECT name, records FROM sources WHERE sha256 = ?').get(sha256) as { name: string; records: number } | undefined;
      if (prior) {
        this.stats.duplicateOf = prior.name;
        if (prior.records > 0) this.stats.duplicateHasRecords = true;
        return false;
      }
    }
    const s = this.stats;
    if (this.seqNodes.size > 0) s.seqNodes = [...this.seqNodes];
    if (this.seqNodes.size > 0 && this.timeWentBack) s.timeGoesBack = true;
    this.db
      .prepare('UPDATE sources SET sha256 = COALESCE(?, sha256), format = ?, lines = ?, record_lines = ?, records = ?, ignored = ?, repeated = ?, rejected = ? WHERE id = ?')
      .run(sha256, s.format ?? null, s.lines, s.recordLines, s.records, s.ignored, s.repeated, s.rejected, this.sourceId);
    markDirty(this.db, this.touched);
    this.nodes.save(this.db, this.sourceId);
    return true;
  }
}

/**
 * Records are ordered by time: within one millisecond, those whose time has digits below it are put in
 * their order, in the places they held. A time written to the millisecond is a truncation, some instant
 * in that millisecond, not its start: it keeps its place in the file (a node logging .360Z is not before
 * another's .360177Z; taken as .360000 it convicted a cross-node fence of being late).
 */
function orderBySubMs(group: Pending[]): Pending[] {
  const places: number[] = [];
  for (let i = 0; i < group.length; i++) if (group[i]!.subMs !== null) places.push(i);
  if (places.length < 2) return group;
  const out = group.slice();
  sortInTheirPlaces(group, places, (g) => g.subMs!, out);
  return out;
}

/** Writes the records of `group` at `places` into `out` at the same places, sorted by `key` (stable). */
function sortInTheirPlaces(group: Pending[], places: number[], key: (g: Pending) => number, out: Pending[]): void {
  const sorted = places.map((i) => group[i]!).sort((a, b) => key(a) - key(b));
  places.forEach((place, k) => (out[place] = sorted[k]!));
}

const seqOf = (g: Pending) => (g.shape.seq < 0 ? undefined : (g.params[g.shape.seq] as number));
const nodeOf = (g: Pending) => (g.shape.node < 0 ? undefined : (g.params[g.shape.node] as string));

/**
 * `seq` is a per-node counter: within a tie, each node's records that carry
 * one are put in seq order, in the places they held. Records without seq, and
 * other nodes' records, stay where the file had them.
 */
function orderBySeq(group: Pending[]): Pending[] {
  const slotsByNode = new Map<string | undefined, number[]>();
  group.forEach((g, i) => {
    if (seqOf(g) === undefined) return;
    const slots = slotsByNode.get(nodeOf(g)) ?? [];
    slots.push(i);
    slotsByNode.set(nodeOf(g), slots);
  });
  const out = group.slice();
  for (const slots of slotsByNode.values()) sortInTheirPlaces(group, slots, (g) => seqOf(g)!, out);
  return out;
}

export function markDirty(db: Db, sessions: Iterable<string>): void {
  const stmt = db.prepare('INSERT OR IGNORE INTO dirty_sessions (session) VALUES (?)');
  for (const s of sessions) stmt.run(s);
}

/**
 * The normalizing side stopped for a reason of its own (its thread died), not
 * because of the input: the load is rolled back and the run stops with why.
 */
export class IngestAborted extends Error {}

/** Where one source's normalized lines come from (pipeline/: this thread or a worker). */
export interface SourceFeed {
  /** Adds every line of the source to the sink; rejects when the source cannot be read on. */
  run(sink: SourceSink): Promise<void>;
  /** The content hash of the bytes read (after run settled), or null when there is none (a followed source). */
  digest(): string | null;
}

/**
 * Loads one source in one transaction: a crash or an I/O error leaves the
 * database as it was before this file. A compressed file cut short (a copy
 * taken while the export was still being written) is data, not a crash: its
 * lines before the cut are kept (see keepBeforeCut).
 */
export async function loadSource(db: Db, name: string, feed: SourceFeed, file?: SourceFile, recent?: RecentLines): Promise<SourceStats> {
  db.exec('BEGIN');
  let sink: SourceSink | undefined;
  // Every COMMIT of this file runs it first: the records indexes may be dropped for the load.
  let rebuildIndexes = () => {};
  // What this file's lines left in the run's window goes with them when its load is undone.
  const undone = () => {
    if (sink !== undefined) recent?.forget(sink.sourceId);
  };
  try {
    rebuildIndexes = deferIndexes(db, 'records');
    sink = new SourceSink(db, name, { ...(file !== undefined && { file }), ...(recent !== undefined && { recent }) });
    await feed.run(sink);
    const kept = sink.finish(feed.digest());
    if (kept) rebuildIndexes();
    else undone();
    db.exec(kept ? 'COMMIT' : 'ROLLBACK');
    return sink.stats;
  } catch (err) {
    const message = (err as Error).message;
    const cut = sink !== undefined && db.inTransaction && message.startsWith('gzip:');
    if (!cut) undone();
    if (isLocked(err)) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw lockedError(db); // the database's problem, not this input's
    }
    if (isStorageFailure(err)) {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // SQLite rolls a failed transaction back itself when it cannot write its journal.
      }
      throw storageError(db, err); // a full disk is not this input's fault
    }
    if (err instanceof IngestAborted) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
    if (cut) return keepBeforeCut(db, sink!, feed.digest(), message, rebuildIndexes);
    if (db.inTransaction) db.exec('ROLLBACK');
    const stats = sink?.stats ?? { name, lines: 0, recordLines: 0, records: 0, ignored: 0, repeated: 0, rejected: 0 };
    return { ...stats, readError: message };
  }
}

/**
 * After the sources of one run are loaded, the ties the sink could not put in seq order: a node whose seq
 * records sit in two of them (or in one and the database) may tie across them, and one whose file's times
 * go back may tie apart in that file. A file in time order of a node in no other file costs nothing here.
 */
export function interleaveNodeTiesOfRun(db: Db, loaded: SourceStats[]): void {
  const seen = new Map<string, number>();
  for (const s of loaded) for (const n of s.seqNodes ?? []) seen.set(n, (seen.get(n) ?? 0) + 1);
  const earlier = sourceCount(db);
  const nodes = new Set([...seen].filter(([, n]) => n > 1 || earlier > loaded.length).map(([node]) => node));
  for (const s of loaded) if (s.timeGoesBack === true) for (const n of s.seqNodes ?? []) nodes.add(n);
  if (nodes.size > 0) db.transaction(() => interleaveNodeTies(db, nodes))();
}

/**
 * Keeps what decompressed before a gzip stream broke off, records the cut as a
 * rejected line where the file ends, and still marks the file unusable so that
 * a gate never passes on a partial export.
 */
function keepBeforeCut(db: Db, sink: SourceSink, sha256: string | null, message: string, beforeCommit: () => void): SourceStats {
  const after = sink.stats.lines;
  sink.add({ line: after + 1, type: 'rejected', reason: `${message}: the compressed file ends here (cut short after line ${after})`, text: '' });
  sink.finish(sha256);
  beforeCommit();
  db.exec('COMMIT');
  return { ...sink.stats, readError: `${message} after line ${after}; the ${after} lines before the cut were kept` };
}
