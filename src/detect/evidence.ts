import type { LineRef } from '../model/record.js';
import type { Db } from '../store/db.js';

/** Resolves record ids to the file:line that logged them, keeping the given order. */
export function resolveEvidence(db: Db, ids: number[]): Map<number, LineRef> {
  const out = new Map<number, LineRef>();
  const unique = [...new Set(ids)];
  const CHUNK = 500;
  for (let i = 0; i < unique.length; i += CHUNK) {
    const part = unique.slice(i, i + CHUNK);
    const rows = db
      .prepare(`SELECT r.id, s.name AS file, r.line FROM records r JOIN sources s ON s.id = r.source_id WHERE r.id IN (${part.map(() => '?').join(',')})`)
      .all(...part) as { id: number; file: string; line: number }[];
    for (const r of rows) out.set(r.id, { file: r.file, line: r.line });
  }
  return out;
}

/** The quoted text of a log line, for text reports and explain. */
export function lineTextResolver(db: Db): (ref: LineRef) => string | undefined {
  const stmt = db.prepare('SELECT raw FROM records r JOIN sources s ON s.id = r.source_id WHERE s.name = ? AND r.line = ? LIMIT 1').pluck();
  return (ref) => stmt.get(ref.file, ref.line) as string | undefined;
}
