import { createHash } from 'node:crypto';
import type { NormalizedRecord } from '../model/record.js';
import type { InputFormat } from '../normalize/formats/index.js';
import { LineNormalizer } from '../normalize/normalize-line.js';
import type { InputLine } from '../read/lines.js';
import { splitLineBatches } from '../read/lines.js';
import type { Source } from '../read/sources.js';
import { isLocked, lockedError, type Db } from './db.js';
import { deferIndexes } from './bulk-load.js';
import { recordWriter, type RecordWriter } from './insert.js';
import { interleaveNodeTies } from './node-ties.js';

export interface SourceStats {
  name: string;
  lines: number;
  recordLines: number;
  records: number;
  ignored: number;
  rejected: number;
  format?: string;
  /** The first rejected line, for the "unusable input" message. */
  firstProblem?: { line: number; reason: string };
  /** Set when the same bytes were ingested before: nothing was added. */
  duplicateOf?: string;
  /** Could not be read at all (message), as opposed to read with bad lines. */
  readError?: string;
  /** Nodes that wrote records with `seq` in this source (for ordering ties across files). */
  seqNodes?: string[];
}

/** An input file is unusable when it cannot be read or not one of its lines is a record. */
export function isUnusable(s: SourceStats): boolean {
  return s.readError !== undefined || (s.duplicateOf === undefined && s.recordLines === 0);
}

const PREVIEW_BYTES = 4096;

/** A run of equal timestamps is held to be put in seq order; past this size it is written as it came. */
const MAX_TIE_GROUP = 10_000;

export interface IngestOptions {
  /** Force one input format (`--input-format`) instead of detecting it per file. */
  inputFormat?: string;
  /** The adapters to detect with; a user mapping goes in front of the built-in ones. */
  formats?: InputFormat[];
  /** After each batch of lines of a source: for a "loading N lines…" display. */
  onProgress?: (source: string, lines: number) => void;
}

/**
 * Writes the lines of one source into the store. Ties in time within a run of
 * equal timestamps are put in `seq` order, so that records keep the order the
 * node wrote them in (millisecond timestamps tie often).
 */
export class SourceIngest {
  readonly stats: SourceStats;
  readonly sourceId: number;
  private readonly normalizer: LineNormalizer;
  private readonly writer: RecordWriter;
  private tieGroup: { line: number; rec: NormalizedRecord; raw: string }[] = [];
  private readonly rejectStmt;
  readonly touched = new Set<string>();
  private readonly seqNodes = new Set<string>();

  constructor(private readonly db: Db, name: string, opts: IngestOptions & { complete?: boolean } = {}) {
    this.normalizer = new LineNormalizer(opts.inputFormat, opts.formats);
    this.writer = recordWriter(db);
    this.rejectStmt = db.prepare('INSERT INTO rejected (source_id, line, reason, text) VALUES (?, ?, ?, ?)');
    // A placeholder hash until the content is known; unique per run.
    const placeholder = `pending:${process.pid}:${Date.now()}:${Math.random()}`;
    this.sourceId = Number(
      db
        .prepare('INSERT INTO sources (name, sha256, complete, ingested_at) VALUES (?, ?, ?, ?)')
        .run(name, placeholder, opts.complete === false ? 0 : 1, new Date().toISOString()).lastInsertRowid,
    );
    this.stats = { name, lines: 0, recordLines: 0, records: 0, ignored: 0, rejected: 0 };
  }

  add(l: InputLine): void {
    this.stats.lines++;
    if ('error' in l) return this.reject(l.line, l.error, l.preview);
    const out = this.normalizer.normalize(l.text);
    if (out.type === 'ignored') {
      this.stats.ignored++;
      return;
    }
    if (out.type === 'rejected') return this.reject(l.line, out.reason, l.text.slice(0, PREVIEW_BYTES));
    this.stats.recordLines++;
    this.stats.format ??= out.format;
    for (const rec of out.records) {
      const last = this.tieGroup[this.tieGroup.length - 1];
      if (last && (last.rec.tsMs !== rec.tsMs || this.tieGroup.length >= MAX_TIE_GROUP)) this.flush();
      this.tieGroup.push({ line: l.line, rec, raw: l.text });
    }
  }

  private reject(line: number, reason: string, text: string): void {
    this.stats.rejected++;
    this.stats.firstProblem ??= { line, reason };
    this.rejectStmt.run(this.sourceId, line, reason, text);
  }

  /** Writes the pending tie group; call before committing a batch. */
  flush(): void {
    const group = this.tieGroup;
    if (group.length === 0) return;
    for (const { line, rec, raw } of group.length > 1 ? orderBySeq(orderBySubMs(group)) : group) {
      this.writer.write(this.sourceId, line, rec, raw);
      this.stats.records++;
      if (rec.seq !== undefined && rec.node !== undefined) this.seqNodes.add(rec.node);
      if (rec.session) this.touched.add(rec.session);
      if (rec.newSession) this.touched.add(rec.newSession);
    }
    this.tieGroup = [];
  }

  /** Records counts and the content hash; false when those bytes were already ingested. */
  finish(sha256: string | null): boolean {
    this.flush();
    if (sha256 !== null) {
      const prior = this.db.prepare('SELECT name FROM sources WHERE sha256 = ?').get(sha256) as { name: string } | undefined;
      if (prior) {
        this.stats.duplicateOf = prior.name;
        return false;
      }
    }
    const s = this.stats;
    if (this.seqNodes.size > 0) s.seqNodes = [...this.seqNodes];
    this.db
      .prepare('UPDATE sources SET sha256 = COALESCE(?, sha256), format = ?, lines = ?, record_lines = ?, records = ?, ignored = ?, rejected = ? WHERE id = ?')
      .run(sha256, s.format ?? null, s.lines, s.recordLines, s.records, s.ignored, s.rejected, this.sourceId);
    markDirty(this.db, this.touched);
    return true;
  }
}

/** Records are ordered by time: within one millisecond, by the digits below it where the log has them (stable). */
function orderBySubMs<T extends { rec: NormalizedRecord }>(group: T[]): T[] {
  if (!group.some((g) => g.rec.tsSubMs !== undefined)) return group;
  return group.slice().sort((a, b) => (a.rec.tsSubMs ?? 0) - (b.rec.tsSubMs ?? 0));
}

/**
 * `seq` is a per-node counter: within a tie, each node's records that carry
 * one are put in seq order, in the places they held. Records without seq, and
 * other nodes' records, stay where the file had them.
 */
function orderBySeq<T extends { rec: NormalizedRecord }>(group: T[]): T[] {
  const slotsByNode = new Map<string | undefined, number[]>();
  group.forEach((g, i) => {
    if (g.rec.seq === undefined) return;
    const slots = slotsByNode.get(g.rec.node) ?? [];
    slots.push(i);
    slotsByNode.set(g.rec.node, slots);
  });
  const out = group.slice();
  for (const slots of slotsByNode.values()) {
    const bySeq = slots.map((i) => group[i]!).sort((a, b) => a.rec.seq! - b.rec.seq!);
    slots.forEach((slot, k) => (out[slot] = bySeq[k]!));
  }
  return out;
}

export function markDirty(db: Db, sessions: Iterable<string>): void {
  const stmt = db.prepare('INSERT OR IGNORE INTO dirty_sessions (session) VALUES (?)');
  for (const s of sessions) stmt.run(s);
}

/**
 * Ingests one source in one transaction: a crash or an I/O error leaves the
 * database as it was before this file. A compressed file cut short (a copy
 * taken while the export was still being written) is data, not a crash: its
 * lines before the cut are kept (see keepBeforeCut).
 */
export async function ingestSource(db: Db, source: Source, opts: IngestOptions = {}): Promise<SourceStats> {
  const hash = createHash('sha256');
  db.exec('BEGIN');
  let ingest: SourceIngest | undefined;
  // Every COMMIT of this file runs it first: the records indexes may be dropped for the load.
  let rebuildIndexes = () => {};
  try {
    rebuildIndexes = deferIndexes(db, 'records');
    ingest = new SourceIngest(db, source.name, opts);
    for await (const batch of splitLineBatches(source.open(), (c) => hash.update(c))) {
      for (const l of batch) ingest.add(l);
      opts.onProgress?.(source.name, ingest.stats.lines);
    }
    const kept = ingest.finish(hash.digest('hex'));
    if (kept) rebuildIndexes();
    db.exec(kept ? 'COMMIT' : 'ROLLBACK');
    return ingest.stats;
  } catch (err) {
    if (isLocked(err)) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw lockedError(db); // the database's problem, not this input's
    }
    const message = (err as Error).message;
    if (ingest !== undefined && db.inTransaction && message.startsWith('gzip:')) return keepBeforeCut(db, ingest, hash, message, rebuildIndexes);
    if (db.inTransaction) db.exec('ROLLBACK');
    const stats = ingest?.stats ?? { name: source.name, lines: 0, recordLines: 0, records: 0, ignored: 0, rejected: 0 };
    return { ...stats, readError: message };
  }
}

export async function ingestAll(db: Db, sources: Source[], opts: IngestOptions = {}): Promise<SourceStats[]> {
  const out: SourceStats[] = [];
  for (const s of sources) out.push(await ingestSource(db, s, opts));
  // A node whose seq records sit in two of these files (or in one of them and the database) may tie across them.
  const seen = new Map<string, number>();
  for (const s of out) for (const n of s.seqNodes ?? []) seen.set(n, (seen.get(n) ?? 0) + 1);
  const earlier = db.prepare('SELECT count(*) FROM sources').pluck().get() as number;
  const shared = new Set([...seen].filter(([, n]) => n > 1 || earlier > out.length).map(([node]) => node));
  if (shared.size > 0) db.transaction(() => interleaveNodeTies(db, shared))();
  return out;
}

/**
 * Keeps what decompressed before a gzip stream broke off, records the cut as a
 * rejected line where the file ends, and still marks the file unusable so that
 * a gate never passes on a partial export.
 */
function keepBeforeCut(db: Db, ingest: SourceIngest, hash: ReturnType<typeof createHash>, message: string, beforeCommit: () => void): SourceStats {
  const after = ingest.stats.lines;
  ingest.add({ line: after + 1, error: `${message}: the compressed file ends here (cut short after line ${after})`, preview: '' });
  ingest.finish(hash.digest('hex'));
  beforeCommit();
  db.exec('COMMIT');
  return { ...ingest.stats, readError: `${message} after line ${after}; the ${after} lines before the cut were kept` };
}
