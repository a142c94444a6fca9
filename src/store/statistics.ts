import type { Db } from './db.js';

/**
 * Keeps SQLite's planner statistics current enough: without them it picks the
 * (kind) index over (session, ts_ms, id) for queries that filter on both, and
 * per-session lookups become scans. Refreshed when the records have doubled
 * since the last refresh; analysis_limit keeps it a sample, not a full pass.
 */
export function refreshStatistics(db: Db): void {
  const records = db.prepare('SELECT max(id) FROM records').pluck().get() as number | null;
  if (records === null || records < 1000) return;
  const last = Number(db.prepare("SELECT value FROM meta WHERE key = 'analyzed_records'").pluck().get() ?? 0);
  if (records < last * 2) return;
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('analyzed_records', ?)").run(String(records));
}
