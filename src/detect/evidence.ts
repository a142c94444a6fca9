import { CitedLine, type LineRef } from '../model/record.js';
import type { Db } from '../store/db.js';
import { citedRecordQuoter } from '../store/cited-record.js';
import { lineTextReader, STORED_LINE_COLUMNS, type StoredLine } from '../store/line-text.js';

export interface ResolvedRecord {
  ref: LineRef;
  tsMs: number;
}

/**
 * Record ids resolved to the file:line that logged them and their time, in typed arrays by id:
 * a bad server's report names close to a million records, and a Map of an object per record
 * was most of its assembly's memory. Each file:line is made once, on first use, and shared by
 * every finding that cites it.
 */
export class ResolvedEvidence {
  private readonly refs: (LineRef | undefined)[] = [];

  constructor(
    /** The ids asked for, sorted, each once. */
    private readonly ids: Uint32Array,
    /** By position in `ids`: the record's time, NaN where no record has the id. */
    private readonly ts: Float64Array,
    private readonly sources: Uint32Array,
    private readonly lines: Float64Array,
    private readonly files: ReadonlyMap<number, string>,
  ) {}

  has(id: number): boolean {
    return this.position(id) !== -1;
  }

  get(id: number): ResolvedRecord | undefined {
    const p = this.position(id);
    return p === -1 ? undefined : { ref: this.refAt(p), tsMs: this.ts[p]! };
  }

  /** Where the id is in `ids`, if a record has it; else -1. */
  position(id: number): number {
    const p = lowerBound(this.ids, id);
    return this.ids[p] === id && !Number.isNaN(this.ts[p]) ? p : -1;
  }

  tsAt(position: number): number {
    return this.ts[position]!;
  }

  refAt(position: number): LineRef {
    return (this.refs[position] ??= new CitedLine(this.files.get(this.sources[position]!)!, this.lines[position]!, this.ids[position]!));
  }
}

/**
 * Resolves record ids to the file:line that logged them, with their time for
 * ordering: one statement for every finding's evidence, the ids handed over as
 * one JSON array and looked up by primary key in id order.
 */
export function resolveEvidence(db: Db, ids: readonly number[]): ResolvedEvidence {
  const sorted = Uint32Array.from(ids).sort();
  let n = 0;
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[n++] = sorted[i]!;
  const unique = sorted.slice(0, n);
  const ts = new Float64Array(n).fill(NaN);
  const sources = new Uint32Array(n);
  const lines = new Float64Array(n);
  // One string per source, shared by every reference to it (tens of thousands of findings name a few files).
  const files = new Map((db.prepare('SELECT id, name FROM sources').raw().all() as [number, string][]).map(([id, name]) => [id, name]));
  const resolved = new ResolvedEvidence(unique, ts, sources, lines, files);
  if (n === 0) return resolved;
  const rows = db
    .prepare('SELECT r.id, r.ts_ms, r.source_id, r.line FROM json_each(?) j JOIN records r ON r.id = j.value')
    .raw()
    .iterate(`[${unique.join(',')}]`) as IterableIterator<[number, number, number, number]>;
  for (const [id, tsMs, source, line] of rows) {
    const p = lowerBound(unique, id);
    ts[p] = tsMs;
    sources[p] = source;
    lines[p] = line;
  }
  return resolved;
}

/** The first position in `sorted` whose id is not below `id` (its length when none is). */
function lowerBound(sorted: Uint32Array, id: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Evidence is read in log order (time, then file order), once, here: detectors
 * name the lines a finding needs in whatever order they found them.
 */
export function evidenceInLogOrder(ids: readonly number[], refs: ResolvedEvidence): LineRef[] {
  const positions: number[] = [];
  for (const id of new Set(ids)) {
    const p = refs.position(id);
    if (p !== -1) positions.push(p);
  }
  // Positions follow id order: the tie-break by id is one by position.
  return positions.sort((a, b) => refs.tsAt(a) - refs.tsAt(b) || a - b).map((p) => refs.refAt(p));
}

/** The quoted text of a log line, for reports and explain; a batch line's cited record (store/cited-record.ts) where it is one. */
export function lineTextResolver(db: Db): (ref: LineRef) => string | undefined {
  const stmt = db.prepare(
    `SELECT ${STORED_LINE_COLUMNS}
     FROM records r JOIN sources s ON s.id = r.source_id WHERE s.name = ? AND r.line = ? ORDER BY r.id LIMIT 1`,
  );
  const text = lineTextReader(db);
  const citedRecord = citedRecordQuoter(db);
  return (ref) => {
    const row = stmt.get(ref.file, ref.line) as StoredLine | undefined;
    if (row === undefined) return undefined;
    return (ref.record !== undefined ? citedRecord(row.sourceId, ref.line, ref.record) : undefined) ?? text(row);
  };
}
