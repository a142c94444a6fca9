import type { Db } from './db.js';

/**
 * Loading a file into an empty `records` table: building its indexes once at
 * the end, from sorted keys, costs less than keeping five B-trees up to date
 * row by row. Call inside the file's transaction: the drop and the rebuild
 * commit or roll back with the rows, so a crash mid-file leaves the indexes
 * as they were. Returns the rebuild, to run before COMMIT (a no-op when the
 * table already held records, whose indexes then stay in place).
 */
export function deferRecordIndexes(db: Db): () => void {
  if (db.prepare('SELECT 1 FROM records LIMIT 1').get() !== undefined) return () => {};
  const indexes = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL ORDER BY name")
    .all() as { name: string; sql: string }[];
  for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
  return () => {
    for (const i of indexes) db.exec(i.sql);
  };
}
