import type { Db } from '../../store/db.js';
import type { RawFinding } from '../types.js';

// Evidence is read in log order (ts, then file order). Detectors collect the
// lines a finding needs in any order; this sorts them all with one lookup.

export function inLogOrder(db: Db, findings: RawFinding[]): RawFinding[] {
  const ids = [...new Set(findings.flatMap((f) => f.evidenceIds))];
  if (ids.length === 0) return findings;
  const rank = new Map<number, number>();
  const rows = db
    .prepare('SELECT r.id FROM json_each(?) j JOIN records r ON r.id = j.value ORDER BY r.ts_ms, r.id')
    .pluck()
    .all(JSON.stringify(ids)) as number[];
  rows.forEach((id, i) => rank.set(id, i));
  return findings.map((f) => ({
    ...f,
    evidenceIds: [...new Set(f.evidenceIds)].sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0)),
  }));
}
