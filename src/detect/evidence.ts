import type { LineRef } from '../model/record.js';
import type { Db } from '../store/db.js';
import { lineTextReader, STORED_LINE_COLUMNS, type StoredLine } from '../store/line-text.js';

export interface ResolvedRecord {
  ref: LineRef;
  tsMs: number;
}

/**
 * Resolves record ids to the file:line that logged them, with their time for
 * ordering: one statement for every finding's evidence, the ids handed over as
 * one JSON array and looked up by primary key in id order.
 */
export function resolveEvidence(db: Db, ids: number[]): Map<number, ResolvedRecord> {
  const out = new Map<number, ResolvedRecord>();
  if (ids.length === 0) return out;
  const unique = Uint32Array.from(new Set(ids)).sort();
  // One string per source, shared by every reference to it (tens of thousands of findings name a few files).
  const files = new Map((db.prepare('SELECT id, name FROM sources').raw().all() as [number, string][]).map(([id, name]) => [id, name]));
  const rows = db
    .prepare('SELECT r.id, r.ts_ms, r.source_id, r.line FROM json_each(?) j JOIN records r ON r.id = j.value')
    .raw()
    .iterate(JSON.stringify(Array.from(unique))) as IterableIterator<[number, number, number, number]>;
  for (const [id, tsMs, source, line] of rows) out.set(id, { ref: { file: files.get(source)!, line }, tsMs });
  return out;
}

/**
 * Evidence is read in log order (time, then file order), once, here: detectors
 * name the lines a finding needs in whatever order they found them.
 */
export function evidenceInLogOrder(ids: number[], refs: Map<number, ResolvedRecord>): LineRef[] {
  return [...new Set(ids)]
    .filter((id) => refs.has(id))
    .sort((a, b) => refs.get(a)!.tsMs - refs.get(b)!.tsMs || a - b)
    .map((id) => refs.get(id)!.ref);
}

/** The quoted text of a log line, for text reports and explain. */
export function lineTextResolver(db: Db): (ref: LineRef) => string | undefined {
  const stmt = db.prepare(
    `SELECT ${STORED_LINE_COLUMNS}
     FROM records r JOIN sources s ON s.id = r.source_id WHERE s.name = ? AND r.line = ? LIMIT 1`,
  );
  const text = lineTextReader(db);
  return (ref) => {
    const row = stmt.get(ref.file, ref.line) as StoredLine | undefined;
    return row === undefined ? undefined : text(row);
  };
}
