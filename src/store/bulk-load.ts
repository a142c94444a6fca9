import type { Db } from './db.js';

/**
 * Loading rows into an empty table: building its indexes once at the end,
 * from sorted keys, costs less than keeping each B-tree up to date row by
 * row. Call inside the load's transaction: the drop and the rebuild commit or
 * roll back with the rows, so a crash mid-load leaves the indexes as they
 * were. Returns the rebuild, to run before COMMIT (a no-op when the table
 * already held rows, whose indexes then stay in place). Primary keys and
 * UNIQUE constraints are not touched.
 */
export function deferIndexes(db: Db, table: 'records' | 'incarnations' | 'streams' | 'events' | 'requests'): () => void {
  if (db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined) return () => {};
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
    .all(table) as { name: string; sql: string }[];
  for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
  return () => {
    for (const i of indexes) db.exec(i.sql);
  };
}
