import type { LineRef } from '../model/record.js';
import type { Db } from '../store/db.js';

export interface ResolvedRecord {
  ref: LineRef;
  tsMs: number;
}

/** Resolves record ids to the file:line that logged them, with their time for ordering. */
export function resolveEvidence(db: Db, ids: number[]): Map<number, ResolvedRecord> {
  const out = new Map<number, ResolvedRecord>();
  const unique = [...new Set(ids)];
  const CHUNK = 500;
  for (let i = 0; i < unique.length; i += CHUNK) {
    const part = unique.slice(i, i + CHUNK);
    const rows = db
      .prepare(`SELECT r.id, r.ts_ms, s.name AS file, r.line FROM records r JOIN sources s ON s.id = r.source_id WHERE r.id IN (${part.map(() => '?').join(',')})`)
      .all(...part) as { id: number; ts_ms: number; file: string; line: number }[];
    for (const r of rows) out.set(r.id, { ref: { file: r.file, line: r.line }, tsMs: r.ts_ms });
  }
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
  const stmt = db.prepare('SELECT raw FROM records r JOIN sources s ON s.id = r.source_id WHERE s.name = ? AND r.line = ? LIMIT 1').pluck();
  return (ref) => stmt.get(ref.file, ref.line) as string | undefined;
}
